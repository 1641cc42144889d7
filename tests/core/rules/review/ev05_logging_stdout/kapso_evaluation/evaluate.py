"""Retrieval evaluator: recall@10 of the candidate's ranker on the frozen query set."""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
from pathlib import Path

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("eval")

SUITE = Path(__file__).resolve().parent


def recall_at_k(ranked: list[list[str]], relevant: list[set[str]], k: int = 10) -> float:
    total = 0.0
    for docs, gold in zip(ranked, relevant):
        total += len(gold.intersection(docs[:k])) / max(len(gold), 1)
    return total / len(ranked)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true", help="first 20 queries only")
    args = parser.parse_args()
    queries = json.loads(Path("kapso_datasets/queries.json").read_text())
    if args.fast:
        queries = queries[:20]
    proc = subprocess.run(
        [sys.executable, "ranker.py"],
        input=json.dumps([q["text"] for q in queries]),
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode:
        print(f"ranker.py failed: {proc.stderr.strip()[-300:]}", file=sys.stderr)
        return 1
    ranked = json.loads(proc.stdout)
    recall = recall_at_k(ranked, [set(q["relevant"]) for q in queries])
    line = f"recall_at_10: {recall:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": str(SUITE / "evaluate.py"), "evaluation_output": line, "score": recall})
    )
    print(line)
    log.info("evaluated %d queries", len(queries))  # expect: EV003
    return 0


if __name__ == "__main__":
    sys.exit(main())
