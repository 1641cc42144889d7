"""Review fixture evaluator: ends with a KAPSO_EVAL_MANIFEST line."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent
ROOT = SUITE.parent


def candidate_score() -> float:
    """Run the candidate; a malformed submission exits 1 with a reason."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "solution" / "predict.py")],
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    try:
        answer = float(done.stdout.strip())
    except ValueError:
        print(f"malformed submission: {done.stdout.strip()[:80]!r} is not a number", file=sys.stderr)
        sys.exit(1)
    if done.returncode != 0:
        print(f"malformed submission: the candidate exited {done.returncode}", file=sys.stderr)
        sys.exit(1)
    return round(1.0 - abs(answer - 0.75), 4)


def write_result(score: object) -> None:
    result = {
        "evaluation_script_path": "kapso_evaluation/evaluate.py",
        "evaluation_output": "",
        "score": score,
    }
    (SUITE / "result.json").write_text(json.dumps(result), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    score = candidate_score()
    if args.fast:
        score = round(score * 0.9, 4)
    write_result(score)
    print(f"accuracy: {score}")
    print("KAPSO_EVAL_MANIFEST " + json.dumps({"score": score, "metric": "accuracy"}))


if __name__ == "__main__":
    main()
