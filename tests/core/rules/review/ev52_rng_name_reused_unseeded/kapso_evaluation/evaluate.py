"""Simulation evaluator: one generator is seeded, the other (same name) is not."""

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


def reference_noise(n: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.normal(0.0, 1.0, n)


def perturb(x: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng()  # expect: EV009
    return x + rng.normal(0.0, 0.01, x.shape)


def finish(value: float) -> None:
    line = f"rmse: {value:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": value})
    )
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    x = np.load(DATA / "signals.npy")[: 100 if args.fast else None]
    np.save(SUITE / "noisy.npy", perturb(x) + reference_noise(x.shape[-1]))
    proc = subprocess.run([sys.executable, "denoise.py", str(SUITE / "noisy.npy")], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"denoise.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    clean = np.array([float(v) for v in proc.stdout.split()])
    finish(float(np.sqrt(np.mean((clean - x.ravel()) ** 2))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
