"""Sampling evaluator: the seed is set in a helper that runs after the draw."""

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


def sample_rows(rows: list[str], k: int) -> list[str]:
    return random.sample(rows, k)  # expect: EV009


def fit_reference(rows: list[str]) -> float:
    random.seed(0)
    return len(rows) / (len(rows) + random.random())


def finish(value: float) -> None:
    line = f"relative_gain: {value:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": value})
    )
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    rows = (DATA / "rows.txt").read_text().splitlines()
    picked = sample_rows(rows, 10 if args.fast else 500)
    reference = fit_reference(picked)
    proc = subprocess.run([sys.executable, "rank.py"], input="\n".join(picked), capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"rank.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    score = sum(float(v) for v in proc.stdout.split()) / len(picked) / reference
    finish(score)
    return 0


if __name__ == "__main__":
    sys.exit(main())
