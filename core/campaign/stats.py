"""Paired bootstrap standard error of a candidate's delta vs the baseline (SPEC §5.3).

Both runs score the same items in the same order (`result.json` `per_item_scores`), so the pairs are resampled
together: the spread of the mean paired difference is the noise in the delta. The seed is fixed so a report
is reproducible and a resumed campaign prints the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

RESAMPLES = 2000
SEED = 20240917
_MAX_CELLS = 4_000_000  # resample matrix chunk size (rows x items) to bound memory on huge item lists


def paired_bootstrap_se(
    baseline: Sequence[float] | None,
    candidate: Sequence[float] | None,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> float | None:
    """SE of mean(candidate - baseline) over paired items; None when the lists are missing or unpaired."""
    if baseline is None or candidate is None or len(baseline) != len(candidate) or len(baseline) < 2:
        return None
    diff = np.asarray(candidate, dtype=float) - np.asarray(baseline, dtype=float)
    if not np.all(np.isfinite(diff)):
        return None
    n = diff.shape[0]
    rng = np.random.default_rng(seed)
    means = np.empty(resamples, dtype=float)
    rows = max(1, _MAX_CELLS // n)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = diff[idx].mean(axis=1)
    se = float(np.std(means, ddof=1))
    return se if math.isfinite(se) else None


def per_item_scores(data: object) -> list[float] | None:
    """The optional `per_item_scores` of a result.json object: finite numbers only, else None."""
    if not isinstance(data, dict):
        return None
    items = data.get("per_item_scores")
    if not isinstance(items, list) or not items:
        return None
    values: list[float] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | float) or not math.isfinite(float(item)):
            return None
        values.append(float(item))
    return values
