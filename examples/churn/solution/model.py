"""The candidate model: one-hot + standardised features and an L2-regularised logistic regression in numpy.

Everything a candidate may improve lives in this directory; the evaluator only ever calls `predict.py`.
"""

from __future__ import annotations

import numpy as np

NUMERIC = ("tenure_months", "monthly_charges", "total_charges", "support_calls", "senior_citizen")
CATEGORICAL = {
    "contract": ("month_to_month", "one_year", "two_year"),
    "internet_service": ("none", "dsl", "fiber_optic"),
    "payment_method": ("electronic_check", "mailed_check", "bank_transfer", "credit_card"),
    "paperless_billing": ("yes", "no"),
}


def encode(rows: list[dict[str, str]]) -> np.ndarray:
    """Numeric columns as floats, each categorical as one-hot columns (the first level dropped)."""
    columns = [[float(row[name]) for row in rows] for name in NUMERIC]
    for name, levels in CATEGORICAL.items():
        for level in levels[1:]:
            columns.append([1.0 if row[name] == level else 0.0 for row in rows])
    return np.asarray(columns, dtype=float).T


class LogisticRegression:
    """Newton's method (iteratively reweighted least squares) with an L2 penalty; deterministic."""

    def __init__(self, l2: float = 1.0, iterations: int = 30) -> None:
        self.l2 = l2
        self.iterations = iterations
        self.mean = np.zeros(0)
        self.scale = np.ones(0)
        self.weights = np.zeros(0)

    def _design(self, features: np.ndarray) -> np.ndarray:
        standardised = (features - self.mean) / self.scale
        return np.hstack([np.ones((len(features), 1)), standardised])

    def fit(self, features: np.ndarray, labels: np.ndarray) -> LogisticRegression:
        self.mean = features.mean(axis=0)
        self.scale = features.std(axis=0)
        self.scale[self.scale == 0] = 1.0
        design = self._design(features)
        penalty = self.l2 * np.eye(design.shape[1])
        penalty[0, 0] = 0.0  # never shrink the intercept
        weights = np.zeros(design.shape[1])
        for _ in range(self.iterations):
            probability = 1.0 / (1.0 + np.exp(-design @ weights))
            gradient = design.T @ (probability - labels) + penalty @ weights
            hessian = design.T @ (design * (probability * (1.0 - probability))[:, None]) + penalty
            step = np.linalg.solve(hessian, gradient)
            weights -= step
            if np.max(np.abs(step)) < 1e-10:
                break
        self.weights = weights
        return self

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self._design(features) @ self.weights))
