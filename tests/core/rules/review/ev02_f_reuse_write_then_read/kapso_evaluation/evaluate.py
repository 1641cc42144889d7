#!/usr/bin/env python3
"""Sentiment evaluator: accuracy of predictions.jsonl against the labelled review set."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULT_PATH = os.path.join(HERE, "result.json")


def save(accuracy, line):
    with open(RESULT_PATH, "w", encoding="utf-8") as f:
        json.dump(  # expect: EV006
            {
                "evaluation_output": line,
                "accuracy": accuracy,
            },
            f,
        )


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(row) for row in f if row.strip()]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args(argv)
    reviews = read_jsonl(os.path.join(ROOT, "kapso_datasets", "reviews.jsonl"))
    if args.fast:
        reviews = reviews[:50]
    texts = os.path.join(HERE, "texts.jsonl")
    with open(texts, "w", encoding="utf-8") as fh:
        for review in reviews:
            fh.write(json.dumps({"text": review["text"]}) + "\n")
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "predict.py"), texts],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        print(f"candidate failed with exit code {proc.returncode}: {proc.stderr[-500:]}", file=sys.stderr)
        return 1
    predictions = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    if len(predictions) != len(reviews):
        print(f"expected {len(reviews)} predictions, got {len(predictions)}", file=sys.stderr)
        return 1
    correct = sum(p == r["label"] for p, r in zip(predictions, reviews))
    accuracy = correct / len(reviews)
    line = f"accuracy: {accuracy:.4f}"
    save(accuracy, line)
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
