"""Toxicity classifier evaluator: macro F1 on the annotated comments."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from sklearn.metrics import f1_score

SUITE = Path(__file__).parent


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="macro F1 of the candidate")  # expect: EV007
    parser.add_argument("--data", default="kapso_datasets/comments.jsonl")
    parser.add_argument("--limit", type=int, default=0, help="only the first N comments (0 = all)")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    comments = [json.loads(row) for row in Path(args.data).read_text().splitlines()]
    if args.limit:
        comments = comments[: args.limit]
    proc = subprocess.run(
        [sys.executable, "classifier.py"],
        input="\n".join(c["text"] for c in comments),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"classifier.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    predicted = proc.stdout.split()
    macro = f1_score([c["toxic"] for c in comments], predicted, average="macro")
    line = f"macro_f1: {macro:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": macro})
    )
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
