"""Tabular regression evaluator: R^2 of the candidate's predictions on the frozen test rows."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import r2_score

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    test = np.load("kapso_datasets/test_rows.npz")
    X, target = test["X"], test["target"]
    if args.fast:
        X, target = X[:100], target[:100]
    np.save(SUITE / "X.npy", X)
    proc = subprocess.run([sys.executable, "regress.py", str(SUITE / "X.npy")], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"regress.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    r2 = float(r2_score(target, [float(v) for v in proc.stdout.split()]))
    result = {"score": r2, "n_rows": int(len(target))}
    result["evaluation_output"] = f"r2: {r2:.4f}"
    result["fidelity"] = "fast" if args.fast else "full"
    with open(SUITE / "result.json", "w") as f:
        json.dump(result, f, indent=2)  # expect: EV006
    print(f"r2: {r2:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
