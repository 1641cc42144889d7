"""Question answering evaluator: exact match on the frozen dev questions."""

from __future__ import annotations

import argparse
import json
import re
import string
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).parent


def normalize(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in string.punctuation)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true", help="smoke check")  # expect: EV008
    parser.add_argument("--questions", default="kapso_datasets/dev_questions.json")
    return parser


def main() -> int:
    args = build_parser().parse_args()
    questions = json.loads(Path(args.questions).read_text())
    proc = subprocess.run(
        [sys.executable, "qa.py", args.questions], capture_output=True, text=True, timeout=1200
    )
    if proc.returncode != 0:
        print("qa.py failed: " + proc.stderr, file=sys.stderr)
        return 1
    answers = json.loads(proc.stdout)
    em = sum(normalize(answers.get(q["id"], "")) in {normalize(a) for a in q["answers"]} for q in questions)
    em = em / len(questions)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"exact_match: {em:.4f}", "score": em})
    )
    print(f"exact_match: {em:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
