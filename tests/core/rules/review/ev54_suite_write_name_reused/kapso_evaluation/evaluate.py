"""Codegen evaluator: `target` is a temp file in one function and a file in the suite in another."""

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


def scratch_program(code: str) -> Path:
    target = Path(tempfile.mkdtemp()) / "program.py"
    target.write_text(code)
    return target


def cache_harness(code: str) -> None:
    target = SUITE / "harness_cache.py"
    target.write_text(code)  # expect: EV016


def finish(value: float) -> None:
    line = f"pass_rate: {value:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": value})
    )
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    tasks = json.loads((DATA / "tasks.json").read_text())[: 3 if args.fast else None]
    passed = 0
    for task in tasks:
        program = scratch_program(task["prompt"] + task["tests"])
        cache_harness(task["tests"])
        passed += subprocess.run([sys.executable, str(program)], capture_output=True).returncode == 0
    finish(passed / len(tasks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
