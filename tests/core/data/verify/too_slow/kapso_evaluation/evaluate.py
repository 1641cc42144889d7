"""Fixture evaluator (slower than fast_budget_s): scores the candidate's answer against 0.75."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent
ROOT = SUITE.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    done = subprocess.run(
        [sys.executable, str(ROOT / "solution" / "predict.py")], capture_output=True, text=True, check=False
    )
    try:
        answer = float(done.stdout.strip())
    except ValueError:
        print(f"malformed submission: {done.stdout.strip()[:80]!r} is not a number", file=sys.stderr)
        sys.exit(1)
    if done.returncode != 0:
        print(f"malformed submission: the candidate exited {done.returncode}", file=sys.stderr)
        sys.exit(1)
    score = round(1.0 - abs(answer - 0.75), 4)
    if args.fast:
        score = round(score * 0.9, 4)
    result = {
        "evaluation_script_path": "kapso_evaluation/evaluate.py",
        "evaluation_output": "",
        "score": score,
    }
    (SUITE / "result.json").write_text(json.dumps(result), encoding="utf-8")
    print(f"accuracy: {score}")


if __name__ == "__main__":
    main()
