"""Statistics of a judge run (SPEC §7): the mean with a standard error clustered by item, and agreement with
human labels (Spearman's rho, quadratic-weighted Cohen's kappa).

Samples of one item are not independent (same input, same output), so the naive SE over samples is too small.
The cluster-robust (CR1) variance of the mean treats each item as one cluster:

    se² = G / (G − 1) · Σ_g (Σ_{i∈g} (y_i − ȳ))² / N²

With equal cluster sizes this equals the plain SE of the item means, var(ȳ_g, ddof=1) / G.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from core.errors import JudgeError


@dataclass(frozen=True)
class MeanSE:
    mean: float | None
    stderr: float | None
    n: int
    clusters: int


def clustered_mean_se(values: Sequence[float], clusters: Sequence[Hashable]) -> MeanSE:
    """Mean of `values` and its SE clustered by `clusters`; SE is None with fewer than two clusters."""
    if len(values) != len(clusters):
        raise JudgeError(f"clustered_mean_se: {len(values)} values but {len(clusters)} cluster labels")
    n = len(values)
    if n == 0:
        return MeanSE(None, None, 0, 0)
    mean = math.fsum(values) / n
    sums: dict[Hashable, list[float]] = {}
    for value, cluster in zip(values, clusters, strict=True):
        sums.setdefault(cluster, []).append(value - mean)
    g = len(sums)
    if g < 2:
        return MeanSE(mean, None, n, g)
    variance = g / (g - 1) * math.fsum(math.fsum(res) ** 2 for res in sums.values()) / n**2
    return MeanSE(mean, math.sqrt(variance), n, g)


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties get average ranks); None when undefined (n < 2 or a constant side)."""
    if len(a) != len(b):
        raise JudgeError(f"spearman: {len(a)} vs {len(b)} values")
    if len(a) < 2 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    from scipy.stats import spearmanr  # type: ignore[import-untyped]

    rho = float(spearmanr(a, b).statistic)
    return None if math.isnan(rho) else rho


def quadratic_weighted_kappa(a: Sequence[int], b: Sequence[int], categories: Sequence[int]) -> float | None:
    """Cohen's kappa with weights (i − j)² / (K − 1)² over the ordered `categories`; None when undefined."""
    import numpy as np

    if len(a) != len(b):
        raise JudgeError(f"kappa: {len(a)} vs {len(b)} ratings")
    k = len(categories)
    if len(a) == 0 or k < 2:
        return None
    position = {category: index for index, category in enumerate(categories)}
    for value in (*a, *b):
        if value not in position:
            raise JudgeError(f"kappa: rating {value!r} is not one of the categories {list(categories)}")
    observed = np.zeros((k, k))
    for x, y in zip(a, b, strict=True):
        observed[position[x], position[y]] += 1
    index = np.arange(k)
    weights = (index[:, None] - index[None, :]) ** 2 / (k - 1) ** 2
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / len(a)
    denominator = float((weights * expected).sum())
    if denominator == 0.0:
        return None
    return 1.0 - float((weights * observed).sum()) / denominator
