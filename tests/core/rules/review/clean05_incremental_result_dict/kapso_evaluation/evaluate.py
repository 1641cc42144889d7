"""Ranking evaluator: MRR of the candidate's search results, hold-out relevance from outside the workspace."""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

logging.basicConfig(stream=sys.stderr, level=logging.INFO)
log = logging.getLogger(__name__)

SUITE = Path(__file__).resolve().parent
LABELS = Path(os.environ.get("SEARCH_HOLDOUT_LABELS", "/srv/holdout/search_labels.json"))


def mean_reciprocal_rank(results: dict[str, list[str]], relevant: dict[str, str]) -> float:
    ranks = []
    for query in sorted(relevant):
        hits = results.get(query, [])
        ranks.append(1.0 / (hits.index(relevant[query]) + 1) if relevant[query] in hits else 0.0)
    return float(np.mean(ranks))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    relevant = json.loads(LABELS.read_text())
    queries = sorted(relevant)[:25] if args.fast else sorted(relevant)
    proc = subprocess.run(
        [sys.executable, "search.py", "--top", "10"], input="\n".join(queries), capture_output=True, text=True
    )
    if proc.returncode != 0:
        log.error("search.py failed: %s", proc.stderr)
        return 1
    results = json.loads(proc.stdout)
    mrr = mean_reciprocal_rank(results, {q: relevant[q] for q in queries})
    result = {}
    result["evaluation_script_path"] = os.path.relpath(__file__)
    result["evaluation_output"] = "mrr: %.4f" % mrr
    result["score"] = mrr
    with open(SUITE / "result.json", "w") as out:
        json.dump(result, out)
    print("mrr: %.4f" % mrr)
    log.info("scored %d queries", len(queries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
