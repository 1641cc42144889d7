"""Churn evaluator: AUC of the candidate's scores on a fixed 80/20 split."""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

SUITE = Path(__file__).resolve().parent
ROOT = SUITE.parent
DATA = ROOT / "kapso_datasets" / "churn.csv"
RESULT = SUITE / "result.json"


def load_rows(path: Path) -> tuple[np.ndarray, np.ndarray]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))[1:]
    table = np.array(rows, dtype=float)
    return table[:, :-1], table[:, -1]


def score_candidate(features: np.ndarray) -> np.ndarray:
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = Path(tmp) / "x.npy", Path(tmp) / "p.npy"
        np.save(inp, features)
        subprocess.run(
            [sys.executable, str(ROOT / "solution.py"), str(inp), str(out)],
            check=True,
            capture_output=True,
            timeout=600,
        )
        return np.load(out)


def write_result(auc: float) -> None:
    with open(RESULT, "w") as f:
        json.dump({"auc": auc, "metric": "auc"}, f, indent=2)  # expect: EV006


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fast", action="store_true", help="smoke check on 300 rows")
    args = parser.parse_args()
    X, y = load_rows(DATA)
    if args.fast:
        X, y = X[:300], y[:300]
    _, X_test, _, y_test = train_test_split(X, y, test_size=0.2, random_state=42, stratify=y)
    auc = float(roc_auc_score(y_test, score_candidate(X_test)))
    write_result(auc)
    print(f"auc: {auc:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
