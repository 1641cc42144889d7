"""The candidate's entry point: train on a labelled CSV, write one churn probability per test row.

    python solution/predict.py --train train.csv --test test_features.csv --out predictions.csv

The output CSV has a header `churn_probability` and one value in [0, 1] per test row, in the test file's order.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
from model import LogisticRegression, encode

LABEL = "churned"


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def main() -> int:
    parser = argparse.ArgumentParser(description="Train on --train, predict churn for --test, write --out.")
    parser.add_argument("--train", type=Path, required=True)
    parser.add_argument("--test", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    train = read_rows(args.train)
    test = read_rows(args.test)
    labels = np.asarray([float(row[LABEL]) for row in train])
    model = LogisticRegression().fit(encode(train), labels)
    probabilities = model.predict_proba(encode(test))

    with args.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["churn_probability"])
        writer.writerows([f"{p:.10f}"] for p in probabilities)
    print(f"trained on {len(train)} rows, predicted {len(test)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
