"""Depth error metrics, masked to valid ground-truth pixels."""

from __future__ import annotations

import numpy as np


def rmse(pred: np.ndarray, gold: np.ndarray) -> float:
    valid = gold > 0
    if not valid.any():
        raise ValueError("scene has no valid depth pixels")
    return float(np.sqrt(np.mean((pred[valid] - gold[valid]) ** 2)))
