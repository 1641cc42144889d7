"""Progress evaluator: `out` is a log file in one function and stdout in main, which prints after the metric."""

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


def log_progress(message: str) -> None:
    out = open(SUITE / "progress.log", "a", encoding="utf-8")
    print(message, file=out)
    out.close()


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
    out = sys.stdout
    items = (DATA / "items.txt").read_text().splitlines()[: 5 if args.fast else None]
    log_progress(f"{len(items)} items")
    proc = subprocess.run([sys.executable, "solve.py"], input="\n".join(items), capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"solve.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    finish(sum(float(v) for v in proc.stdout.split()) / len(items))
    print("evaluation finished", file=out)  # expect: EV003
    return 0


if __name__ == "__main__":
    sys.exit(main())
