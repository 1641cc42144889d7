"""Resampling evaluator: `seed` is a constant in one function and the clock in another."""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SUITE = Path(__file__).resolve().parent
DATA = Path("kapso_datasets")


def reference_split(n: int) -> np.ndarray:
    seed = 1234
    return np.random.default_rng(seed).permutation(n)


def bootstrap_index(n: int) -> np.ndarray:
    seed = int(time.time())  # expect: EV010
    return np.random.default_rng(seed).integers(0, n, n)


def finish(value: float) -> None:
    line = f"mae: {value:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": value})
    )
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    y = np.load(DATA / "targets.npy")[: 100 if args.fast else None]
    order = reference_split(len(y))
    proc = subprocess.run([sys.executable, "predict.py", str(len(y))], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"predict.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    pred = np.array([float(v) for v in proc.stdout.split()])[order]
    idx = bootstrap_index(len(y))
    finish(float(np.mean(np.abs(pred[idx] - y[order][idx]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
