"""Credit evaluator: validation cross-entropy (log loss) of the candidate's probabilities, 5-fold CV."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    table = np.loadtxt("kapso_datasets/credit.csv", delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]
    folds = StratifiedKFold(n_splits=2 if args.fast else 5, shuffle=True, random_state=2024)
    losses = []
    for fold, (train, test) in enumerate(folds.split(X, y)):
        np.savez(SUITE / "fold.npz", X_train=X[train], y_train=y[train], X_eval=X[test])
        proc = subprocess.run(
            [sys.executable, "credit_model.py", str(SUITE / "fold.npz")], capture_output=True, text=True
        )
        if proc.returncode != 0:
            print(f"credit_model.py failed on fold {fold}: {proc.stderr[-300:]}", file=sys.stderr)
            return 1
        losses.append(log_loss(y[test], np.array([float(v) for v in proc.stdout.split()])))
    loss = float(np.mean(losses))
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"val_cross_entropy: {loss:.5f}", "score": loss})
    )
    print(f"val_cross_entropy: {loss:.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
