"""Does a score difference beat noise? The one rule shared by campaign winners and the PR check.

A campaign's winner and the GitHub App's `regression` conclusion both compare a score with a reference (the
baseline, or the PR's base) and must not act on noise: a difference counts only when it is larger than an
absolute threshold and, when the evaluator reported per-item scores (so the paired bootstrap gives a standard
error), larger than `significance` standard errors. Everything here is pure arithmetic over numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

Direction = Literal["maximize", "minimize"]
DEFAULT_MIN_IMPROVEMENT = 0.0
DEFAULT_SIGNIFICANCE = 2.0


@dataclass(frozen=True)
class NoiseRule:
    """How far a difference must go before it counts: `threshold` absolute, `significance` standard errors."""

    threshold: float = DEFAULT_MIN_IMPROVEMENT
    significance: float = DEFAULT_SIGNIFICANCE

    def to_json(self) -> dict[str, float]:
        return {"min_improvement": self.threshold, "significance": self.significance}


DEFAULT_RULE = NoiseRule()


def improvement(delta: float, direction: Direction) -> float:
    """The delta (candidate − reference) turned so that positive always means better."""
    return delta if direction == "maximize" else -delta


def exceeds_noise(gain: float, stderr: float | None, rule: NoiseRule) -> bool:
    """True when `gain` is strictly above `rule.threshold` and, when a standard error is known, strictly above
    `rule.significance` × `stderr`. A non-finite gain never counts."""
    if not math.isfinite(gain) or gain <= rule.threshold:
        return False
    if stderr is None or not math.isfinite(stderr):
        return True
    return gain > rule.significance * stderr


def beats_baseline(
    delta: float | None, stderr: float | None, direction: Direction, rule: NoiseRule = DEFAULT_RULE
) -> bool:
    """Whether a candidate whose score differs from the baseline's by `delta` (candidate − baseline, with the
    paired bootstrap `stderr` when known) is a real improvement under `direction`.

    Campaigns use it to pick the winner (`[campaign] min_improvement` / `significance`); a candidate that is
    better but does not beat noise is reported "within noise" and never delivered. `delta` None (no baseline
    score to compare with) is not an improvement.
    """
    if delta is None:
        return False
    return exceeds_noise(improvement(delta, direction), stderr, rule)


def is_regression(
    delta: float | None,
    stderr: float | None,
    direction: Direction,
    *,
    tolerance: float = 0.0,
    significance: float = DEFAULT_SIGNIFICANCE,
) -> bool:
    """Whether a PR head scoring `delta` against its base (head − base) is worse beyond noise: worse by more
    than `tolerance` (`github.regression_tolerance`) and, with a standard error, by more than `significance`
    standard errors. The mirror image of `beats_baseline`, so the PR check and campaigns agree on noise."""
    if delta is None:
        return False
    return exceeds_noise(-improvement(delta, direction), stderr, NoiseRule(tolerance, significance))
