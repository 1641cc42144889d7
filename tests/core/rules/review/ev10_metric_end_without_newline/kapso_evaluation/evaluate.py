"""Fraud evaluator: ROC AUC of the candidate's risk scores on last quarter's transactions."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

SUITE = Path(__file__).resolve().parent


def bootstrap_std(y: np.ndarray, p: np.ndarray, rounds: int = 200) -> float:
    rng = np.random.default_rng(7)
    stats = []
    for _ in range(rounds):
        idx = rng.integers(0, len(y), len(y))
        stats.append(roc_auc_score(y[idx], p[idx]))
    return float(np.std(stats))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    data = np.load("kapso_datasets/transactions.npz")
    X, y = data["X"], data["y"]
    if args.fast:
        X, y = X[:1000], y[:1000]
    np.save(SUITE / "features.npy", X)
    proc = subprocess.run(
        [sys.executable, "score.py", str(SUITE / "features.npy"), str(SUITE / "scores.npy")],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"score.py failed ({proc.returncode}): {proc.stderr[-400:]}", file=sys.stderr)
        return 1
    p = np.load(SUITE / "scores.npy")
    auc = float(roc_auc_score(y, p))
    std = bootstrap_std(y, p)
    (SUITE / "result.json").write_text(
        json.dumps(
            {
                "evaluation_script_path": str(SUITE / "evaluate.py"),
                "evaluation_output": f"auc: {auc:.4f}",
                "score": auc,
                "std": std,
            }
        )
    )
    print(f"auc: {auc:.4f}", end="", flush=True)  # expect: EV004
    return 0


if __name__ == "__main__":
    sys.exit(main())
