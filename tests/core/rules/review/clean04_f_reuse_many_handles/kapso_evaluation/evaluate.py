"""NER evaluator: entity-level F1 on the frozen news test set; also saves per-sentence predictions."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent
RESULT = SUITE / "result.json"


def read_gold(path: Path) -> list[list[tuple[int, int, str]]]:
    with open(path, encoding="utf-8") as f:
        return [[tuple(e) for e in json.loads(line)["entities"]] for line in f]


def save_predictions(predicted: list[list[tuple[int, int, str]]]) -> None:
    with open(SUITE / "predictions.json", "w", encoding="utf-8") as f:
        json.dump({"sentences": len(predicted), "entities": predicted}, f)


def save_result(f1: float, line: str) -> None:
    with open(RESULT, "w", encoding="utf-8") as f:
        json.dump({"evaluation_script_path": str(SUITE / "evaluate.py"), "evaluation_output": line, "score": f1}, f)


def entity_f1(gold: list[list[tuple[int, int, str]]], pred: list[list[tuple[int, int, str]]]) -> float:
    tp = fp = fn = 0
    for g, p in zip(gold, pred):
        gs, ps = set(g), set(p)
        tp += len(gs & ps)
        fp += len(ps - gs)
        fn += len(gs - ps)
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    gold = read_gold(Path("kapso_datasets/news_test.jsonl"))
    gold = gold[:30] if args.fast else gold
    proc = subprocess.run(
        [sys.executable, "tagger.py", "kapso_datasets/news_test.jsonl", str(len(gold))],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"tagger.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    predicted = [[tuple(e) for e in json.loads(line)] for line in proc.stdout.splitlines()]
    if len(predicted) != len(gold):
        print(f"tagger.py returned {len(predicted)} sentences, expected {len(gold)}", file=sys.stderr)
        return 1
    save_predictions(predicted)
    f1 = entity_f1(gold, predicted)
    line = f"entity_f1: {f1:.4f}"
    save_result(f1, line)
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
