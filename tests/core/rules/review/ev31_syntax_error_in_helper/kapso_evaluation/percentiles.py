"""Percentile helpers (nearest-rank), kept next to the evaluator."""

from __future__ import annotations


def nearest_rank(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        raise ValueError("no samples")
    rank = max(1, round(q / 100 * len(ordered))  # expect: EV001
    return ordered[rank - 1]
