"""Audit evaluator: `path` is an env-provided hold-out file in one function, a label file in the data dir in another."""

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


def audit_labels() -> int:
    path = Path(os.environ.get("AUDIT_LABELS", "/srv/holdout/audit.csv"))
    return len(path.read_text().splitlines()) if path.exists() else 0


def gold_labels() -> list[str]:
    path = DATA / "test_labels.csv"
    return path.read_text().splitlines()  # expect: EV015


def finish(value: float) -> None:
    line = f"accuracy: {value:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": value})
    )
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    gold = gold_labels()[: 50 if args.fast else None]
    print(f"audit rows: {audit_labels()}", file=sys.stderr)
    proc = subprocess.run([sys.executable, "classify.py", str(len(gold))], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"classify.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    finish(sum(p == g for p, g in zip(proc.stdout.split(), gold)) / len(gold))
    return 0


if __name__ == "__main__":
    sys.exit(main())
