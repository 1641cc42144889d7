"""Tagger evaluator: token accuracy; result.json sits next to this file (Path.with_name)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

RESULT = Path(__file__).resolve().with_name("result.json")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    sentences = [json.loads(line) for line in Path("kapso_datasets/pos_dev.jsonl").read_text().splitlines()]
    sentences = sentences[:20] if args.fast else sentences
    proc = subprocess.run(
        [sys.executable, "tagger.py"],
        input="\n".join(" ".join(s["tokens"]) for s in sentences),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"tagger.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    predicted = [line.split() for line in proc.stdout.splitlines()]
    pairs = [(p, g) for pred, s in zip(predicted, sentences) for p, g in zip(pred, s["tags"])]
    accuracy = sum(p == g for p, g in pairs) / len(pairs)
    line = f"token_accuracy: {accuracy:.4f}"
    with RESULT.open("w", encoding="utf-8") as fh:
        json.dump({"evaluation_script_path": __file__, "evaluation_output": line, "score": accuracy}, fh)
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
