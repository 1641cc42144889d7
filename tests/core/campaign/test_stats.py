"""Paired bootstrap SE of the delta."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.campaign.stats import paired_bootstrap_se, per_item_scores


def test_identical_runs_have_zero_error() -> None:
    items = [0.1, 0.5, 0.9, 0.3]
    assert paired_bootstrap_se(items, items) == 0.0


def test_se_matches_the_analytic_standard_error_of_the_mean_difference() -> None:
    rng = np.random.default_rng(1)
    base = rng.normal(size=400)
    cand = base + rng.normal(0.1, 0.5, size=400)
    diff = cand - base
    analytic = float(np.std(diff, ddof=1) / math.sqrt(len(diff)))
    se = paired_bootstrap_se(base.tolist(), cand.tolist())
    assert se is not None and se == pytest.approx(analytic, rel=0.1)


def test_pairing_removes_shared_item_difficulty() -> None:
    base = [float(i) for i in range(100)]  # items differ wildly in difficulty...
    cand = [x + 0.5 for x in base]  # ...but the candidate is uniformly better
    assert paired_bootstrap_se(base, cand) == 0.0


def test_deterministic_with_the_fixed_seed() -> None:
    base, cand = [0.1, 0.4, 0.3, 0.8, 0.6], [0.2, 0.3, 0.5, 0.9, 0.4]
    assert paired_bootstrap_se(base, cand) == paired_bootstrap_se(base, cand)


@pytest.mark.parametrize(
    ("base", "cand"),
    [
        (None, [1.0, 2.0]),
        ([1.0, 2.0], None),
        ([1.0, 2.0], [1.0]),
        ([1.0], [2.0]),
        ([1.0, math.nan], [1.0, 2.0]),
    ],
)
def test_unpaired_or_missing_items_give_none(base: list[float] | None, cand: list[float] | None) -> None:
    assert paired_bootstrap_se(base, cand) is None


def test_large_item_lists_are_chunked() -> None:
    base = [0.0] * 50_000
    cand = [float(i % 2) for i in range(50_000)]
    se = paired_bootstrap_se(base, cand, resamples=200)
    assert se is not None and se == pytest.approx(0.5 / math.sqrt(50_000), rel=0.2)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"per_item_scores": [1, 0.5]}, [1.0, 0.5]),
        ({"per_item_scores": []}, None),
        ({"per_item_scores": [1, "x"]}, None),
        ({"per_item_scores": [True, 1]}, None),
        ({"per_item_scores": [1, None]}, None),
        ({"per_item_scores": "1,2"}, None),
        ({}, None),
        ([1, 2], None),
    ],
)
def test_per_item_scores_are_read_strictly(data: object, expected: list[float] | None) -> None:
    assert per_item_scores(data) == expected
