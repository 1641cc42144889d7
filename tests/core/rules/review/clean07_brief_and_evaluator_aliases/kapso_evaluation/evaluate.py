"""Churn evaluator matching brief.md: ROC AUC on an 80/20 stratified split with seed 42."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    table = np.loadtxt("kapso_datasets/churn.csv", delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]
    _, X_test, _, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=42)
    if args.fast:
        X_test, y_test = X_test[:200], y_test[:200]
    np.save(SUITE / "X_test.npy", X_test)
    proc = subprocess.run(
        [sys.executable, "solution.py", str(SUITE / "X_test.npy")], capture_output=True, text=True, timeout=600
    )
    if proc.returncode != 0:
        print(f"solution.py failed: {proc.stderr[-500:]}", file=sys.stderr)
        return 1
    scores = np.array([float(v) for v in proc.stdout.split()])
    if scores.shape != y_test.shape:
        print(f"solution.py printed {scores.size} scores for {y_test.size} rows", file=sys.stderr)
        return 1
    auc = float(roc_auc_score(y_test, scores))
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"test_auc: {auc:.4f}", "score": auc})
    )
    print(f"test_auc: {auc:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
