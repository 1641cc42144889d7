"""Credit default evaluator: 5-fold cross-validated log loss of the candidate's feature pipeline.

The candidate writes features.npz; the evaluator fits a fixed gradient-boosting model on them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.metrics import log_loss
from sklearn.model_selection import KFold, StratifiedShuffleSplit

SEED = 2024
SUITE = Path(__file__).resolve().parent


def cv_log_loss(X: np.ndarray, y: np.ndarray, fast: bool) -> float:
    folds = KFold(n_splits=3 if fast else 5, shuffle=True)  # expect: EV009
    losses = []
    for train, test in folds.split(X):
        model = GradientBoostingClassifier(n_estimators=50 if fast else 300, random_state=SEED)
        model.fit(X[train], y[train])
        losses.append(log_loss(y[test], model.predict_proba(X[test])))
    return float(np.mean(losses))


def sanity_forest(X: np.ndarray, y: np.ndarray) -> float:
    split = StratifiedShuffleSplit(n_splits=1, test_size=0.25, random_state=None)  # expect: EV009
    train, test = next(split.split(X, y))
    forest = RandomForestClassifier(n_estimators=100, n_jobs=-1)  # expect: EV009
    forest.fit(X[train], y[train])
    return float(forest.score(X[test], y[test]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    made = subprocess.run([sys.executable, "features.py", str(SUITE / "features.npz")], capture_output=True)
    if made.returncode != 0:
        print(f"features.py exited {made.returncode}", file=sys.stderr)
        return 1
    data = np.load(SUITE / "features.npz")
    X, y = data["X"], data["y"]
    loss = cv_log_loss(X, y, args.fast)
    forest_accuracy = sanity_forest(X, y)
    line = f"log_loss: {loss:.5f}"
    (SUITE / "result.json").write_text(
        json.dumps(
            {
                "evaluation_script_path": str(SUITE / "evaluate.py"),
                "evaluation_output": line,
                "score": loss,
                "forest_accuracy": forest_accuracy,
            }
        )
    )
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
