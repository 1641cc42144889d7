"""Sentiment evaluator that drifted from the brief: it reports accuracy, through a `line` variable."""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    with open("kapso_datasets/reviews.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    test = rows[int(len(rows) * 0.9) :][: 50 if args.fast else None]
    proc = subprocess.run(
        [sys.executable, "sentiment.py"], input="\n".join(r["text"] for r in test), capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(f"sentiment.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    accuracy = sum(p == r["label"] for p, r in zip(proc.stdout.split(), test)) / len(test)
    line = f"accuracy: {accuracy:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": accuracy})
    )
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
