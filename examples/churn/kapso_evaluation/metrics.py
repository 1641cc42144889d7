"""The churn evaluator's metric, kept in its own suite module: ROC AUC as per-row placement values.

evaluate.py imports it (the suite directory is first on sys.path when it runs as a script). It is protected
like every suite file: a candidate that replaces it, or plants bytecode for it, is rejected.
"""

from __future__ import annotations

import numpy as np


def auc_placements(labels: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per-row AUC placement values (DeLong): their mean is exactly the ROC AUC, so rows can be bootstrapped.

    A positive row scores the share of negatives it outranks, a negative row the share of positives that
    outrank it; ties count one half.
    """
    positives, negatives = scores[labels == 1], scores[labels == 0]
    if len(positives) == 0 or len(negatives) == 0:
        raise ValueError("the test split has a single class; AUC is undefined")
    negatives_sorted, positives_sorted = np.sort(negatives), np.sort(positives)
    below = np.searchsorted(negatives_sorted, positives, side="left")
    not_above = np.searchsorted(negatives_sorted, positives, side="right")
    above = len(positives) - np.searchsorted(positives_sorted, negatives, side="right")
    not_below = len(positives) - np.searchsorted(positives_sorted, negatives, side="left")
    placements = np.empty(len(scores))
    placements[labels == 1] = (below + not_above) / (2.0 * len(negatives))
    placements[labels == 0] = (above + not_below) / (2.0 * len(positives))
    return placements
