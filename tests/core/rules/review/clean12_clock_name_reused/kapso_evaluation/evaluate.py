"""Timing evaluator: `start` is a wall-clock time in main (logged to stderr) and a constant seed elsewhere."""

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


def pick(rows: list[str], k: int) -> list[str]:
    start = 17
    rng = np.random.default_rng(start)
    return [rows[i] for i in rng.choice(len(rows), size=min(k, len(rows)), replace=False)]


def finish(value: float) -> None:
    line = f"mean_rank_score: {value:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": value})
    )
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    start = time.time()
    rows = (DATA / "rows.txt").read_text().splitlines()
    picked = pick(rows, 10 if args.fast else 500)
    proc = subprocess.run([sys.executable, "rank.py"], input="\n".join(picked), capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"rank.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    print(f"ranked {len(picked)} rows in {time.time() - start:.1f}s", file=sys.stderr)
    finish(sum(float(v) for v in proc.stdout.split()) / len(picked))
    return 0


if __name__ == "__main__":
    sys.exit(main())
