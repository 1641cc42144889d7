"""Is a measured change a regression beyond noise? One rule, for the PR check (SPEC §10 "Check run outcome").

Kept apart so it can merge with the campaign's "beats the baseline beyond noise" rule (`[campaign]`
min_improvement / significance) when that lands: both ask how far a delta is from zero, in its direction,
against a tolerance and a number of standard errors.
"""

from __future__ import annotations

from core.campaign.model import Direction

REGRESSION_SE = 2.0


def worse_beyond_noise(
    delta: float,
    stderr: float | None,
    direction: Direction,
    *,
    tolerance: float = 0.0,
    se_multiple: float = REGRESSION_SE,
) -> bool:
    """True when `delta` (head − base) is worse than the base by more than `tolerance`, and, when a standard
    error is known, also by more than `se_multiple` standard errors (a noisy evaluator's wobble is not a
    regression)."""
    worse_by = -delta if direction == "maximize" else delta
    if worse_by <= tolerance:
        return False
    return stderr is None or worse_by > se_multiple * stderr
