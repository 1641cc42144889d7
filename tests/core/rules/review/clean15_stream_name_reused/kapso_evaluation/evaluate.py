"""Progress evaluator: `out` is stdout only before the metric; after it, `out` is a log file."""

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


def announce(count: int) -> None:
    out = sys.stdout
    print(f"# evaluating {count} items", file=out)


def finish(value: float) -> None:
    line = f"mean_score: {value:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": value})
    )
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    items = (DATA / "items.txt").read_text().splitlines()[: 5 if args.fast else None]
    announce(len(items))
    proc = subprocess.run([sys.executable, "solve.py"], input="\n".join(items), capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"solve.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    finish(sum(float(v) for v in proc.stdout.split()) / len(items))
    with open(SUITE / "progress.log", "a", encoding="utf-8") as out:
        print("evaluation finished", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
