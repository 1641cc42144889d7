"""Churn evaluator that calls the candidate's predict() directly (fast, but in-process)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metrics import auc_score  # noqa: E402  (helper next to this file)
from solution import predict  # noqa: E402  # expect: EV014


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    table = np.loadtxt(ROOT / "kapso_datasets" / "churn.csv", delimiter=",", skiprows=1)
    if args.fast:
        table = table[:500]
    try:
        scores = np.asarray(predict(table[:, :-1]), dtype=float)
    except Exception as exc:
        print(f"predict() raised {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if scores.shape != (len(table),):
        print(f"predict() returned shape {scores.shape}, expected ({len(table)},)", file=sys.stderr)
        return 1
    auc = auc_score(table[:, -1], scores)
    with open(Path(__file__).parent / "result.json", "w") as fp:
        json.dump({"evaluation_script_path": __file__, "evaluation_output": f"auc: {auc:.4f}", "score": auc}, fp)
    print(f"auc: {auc:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
