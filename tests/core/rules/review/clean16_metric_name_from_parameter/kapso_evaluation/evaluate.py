"""Ranking evaluator with a small reporting helper shared by several metrics."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent


def report(name: str, value: float) -> None:
    """Write result.json and print the score line, in that order."""
    line = f"{name}: {value:.4f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": value})
    )
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    queries = json.loads(Path("kapso_datasets/queries.json").read_text())[: 10 if args.fast else None]
    proc = subprocess.run([sys.executable, "rank.py"], input=json.dumps(queries), capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"rank.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    ranks = [int(r) for r in proc.stdout.split()]
    report("mrr", sum(1 / r for r in ranks) / len(ranks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
