"""House-price evaluator: RMSE (lower is better) of the candidate's predictions."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

SUITE = Path(__file__).parent
RESULT = SUITE / "result.json"


def record(rmse: float, line: str) -> None:
    with RESULT.open("w") as f:
        json.dump({"evaluation_script_path": __file__, "evaluation_output": line, "score": rmse}, f)


def record_failure(stage: str, detail: str) -> None:
    with RESULT.open("w") as f:
        json.dump({"stage": stage, "error": detail, "score": None}, f)  # expect: EV006


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    test = np.load("kapso_datasets/houses_test.npz")
    X, y = test["X"], test["y"]
    if args.fast:
        X, y = X[:200], y[:200]
    np.save("/tmp/houses_X.npy", X)
    proc = subprocess.run(
        [sys.executable, "model/predict.py", "/tmp/houses_X.npy", "/tmp/houses_pred.npy"],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        record_failure("predict", proc.stderr[-2000:])
        print(f"predict.py exited {proc.returncode}", file=sys.stderr)
        return 2
    pred = np.load("/tmp/houses_pred.npy")
    rmse = float(np.sqrt(np.mean((pred - y) ** 2)))
    line = f"rmse: {rmse:.3f}"
    record(rmse, line)
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
