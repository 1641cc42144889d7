"""Spelling corrector evaluator: word accuracy on the misspellings corpus."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    pairs = [line.split("\t") for line in Path("kapso_datasets/misspellings.tsv").read_text().splitlines()]
    pairs = pairs[:100] if args.fast else pairs
    proc = subprocess.run(
        [sys.executable, "correct.py"], input="\n".join(w for w, _ in pairs), capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(f"correct.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    fixed = proc.stdout.split("\n")
    accuracy = sum(f.strip() == right.strip() for f, (_, right) in zip(fixed, pairs)) / len(pairs)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"word_accuracy: {accuracy:.4f}", "score": accuracy})
    )
    print(f"word_accuracy: {accuracy:.4f}")
    return 0


if __name__ == "__main__":
    status = main()
    print(f"evaluate.py finished with status {status}")  # expect: EV003
    sys.exit(status)
