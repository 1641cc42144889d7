"""Churn evaluator: ROC AUC of the candidate's churn probabilities on a fixed 80/20 hold-out split.

    PROCTOR_HOLDOUT_DIR=../churn-holdout python kapso_evaluation/evaluate.py [--fast]

Protocol (the brief's Measured by): data kapso_datasets/churn.csv; rows shuffled with numpy's
default_rng(42), the first 20 % are the hold-out test set, whose labels are not in the workspace but in
`churn_labels.csv` in the hold-out dir (PROCTOR_HOLDOUT_DIR; Proctor sets it from proctor.toml's
`holdout_dir`); the candidate's entry point solution/predict.py runs in a subprocess, sees the training rows
(with labels) and the test rows without `churned`, and writes one probability per test row; metric ROC AUC,
higher is better, printed as the last line `auc: <value>`.
`--fast` trains on 600 and scores 300 rows for smoke checks; its scores are never compared with full ones.
A malformed submission (crash, missing or wrong-length output, non-numbers, values outside [0, 1]) exits 1
with the reason on stderr and prints no metric.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from metrics import auc_placements

SUITE = Path(__file__).resolve().parent
ROOT = SUITE.parent
DATA = ROOT / "kapso_datasets" / "churn.csv"
ENTRY_POINT = ROOT / "solution" / "predict.py"
RESULT_PATH = SUITE / "result.json"
LABEL = "churned"
HOLDOUT_ENV = "PROCTOR_HOLDOUT_DIR"
HOLDOUT_LABELS = "churn_labels.csv"
SEED = 42
TEST_FRACTION = 0.2
FAST_TRAIN_ROWS = 600
FAST_TEST_ROWS = 300
CANDIDATE_TIMEOUT_S = 120
DECIMALS = 4


def fail(reason: str) -> None:
    """A malformed submission is a failed run with a reason, never a low score."""
    print(f"evaluation failed: {reason}", file=sys.stderr)
    sys.exit(1)


def load_rows() -> tuple[list[str], list[dict[str, str]]]:
    with DATA.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
        header = list(reader.fieldnames or [])
    return header, rows


def holdout_labels(test_rows: list[dict[str, str]]) -> np.ndarray:
    """The test rows' labels, read from the hold-out dir (outside the workspace, so never the candidate's)."""
    folder = os.environ.get(HOLDOUT_ENV, "")
    if not folder:
        fail(f"no hold-out labels: set {HOLDOUT_ENV} to the directory with {HOLDOUT_LABELS}")
    path = Path(folder) / HOLDOUT_LABELS
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            by_id = {row["customer_id"]: row[LABEL] for row in csv.DictReader(handle)}
    except (OSError, KeyError) as exc:
        fail(f"cannot read the hold-out labels {path}: {exc}")
    missing = [row["customer_id"] for row in test_rows if row["customer_id"] not in by_id]
    if missing:
        fail(f"{path} has no label for {len(missing)} test row(s), e.g. {missing[0]}")
    return np.asarray([int(by_id[row["customer_id"]]) for row in test_rows])


def split(count: int, fast: bool) -> tuple[np.ndarray, np.ndarray]:
    order = np.random.default_rng(SEED).permutation(count)
    n_test = round(count * TEST_FRACTION)
    test, train = order[:n_test], order[n_test:]
    if fast:
        train, test = train[:FAST_TRAIN_ROWS], test[:FAST_TEST_ROWS]
    return train, test


def write_csv(path: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def run_candidate(train_csv: Path, test_csv: Path, out_csv: Path) -> None:
    """The candidate runs in its own process: it cannot patch this evaluator's metric code."""
    argv = [
        sys.executable,
        str(ENTRY_POINT),
        "--train",
        str(train_csv),
        "--test",
        str(test_csv),
        "--out",
        str(out_csv),
    ]
    try:
        done = subprocess.run(
            argv, cwd=ROOT, capture_output=True, text=True, timeout=CANDIDATE_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        fail(f"the candidate did not finish within {CANDIDATE_TIMEOUT_S} s")
    except OSError as exc:
        fail(f"cannot start the candidate {ENTRY_POINT.relative_to(ROOT)}: {exc}")
    else:
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            fail(f"the candidate exited {done.returncode}: {tail}")


def read_predictions(path: Path, expected: int) -> np.ndarray:
    if not path.is_file():
        fail("the candidate wrote no predictions file (expected a CSV with a `churn_probability` column)")
    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        lines = [row for row in csv.reader(handle) if row]
    if not lines or [cell.strip() for cell in lines[0]] != ["churn_probability"]:
        fail(f"the predictions file must start with the header `churn_probability`, found {lines[:1]!r}")
    values = []
    for number, row in enumerate(lines[1:], start=2):
        if len(row) != 1:
            fail(f"predictions line {number}: expected one value, found {row!r}")
        try:
            value = float(row[0])
        except ValueError:
            fail(f"predictions line {number}: {row[0]!r} is not a number")
        if not math.isfinite(value) or not 0.0 <= value <= 1.0:
            fail(f"predictions line {number}: {value!r} is not a probability in [0, 1]")
        values.append(value)
    if len(values) != expected:
        fail(f"expected {expected} predictions (one per test row), found {len(values)}")
    return np.asarray(values)


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Score solution/predict.py by ROC AUC on the hold-out split."
    )
    parser.add_argument(
        "--fast", action="store_true", help="smoke check on a small subsample (not comparable)"
    )
    args = parser.parse_args()

    header, rows = load_rows()
    if LABEL not in header:
        fail(f"{DATA.relative_to(ROOT)} has no `{LABEL}` column")
    train_idx, test_idx = split(len(rows), args.fast)
    train_rows = [rows[i] for i in train_idx]
    test_rows = [rows[i] for i in test_idx]
    labels = holdout_labels(test_rows)

    with tempfile.TemporaryDirectory(prefix="churn-eval-") as scratch:
        work = Path(scratch)
        write_csv(work / "train.csv", header, train_rows)
        write_csv(work / "test_features.csv", [name for name in header if name != LABEL], test_rows)
        run_candidate(work / "train.csv", work / "test_features.csv", work / "predictions.csv")
        predictions = read_predictions(work / "predictions.csv", len(test_rows))

    try:
        placements = auc_placements(labels, predictions)
    except ValueError as exc:
        fail(str(exc))
    score = round(float(placements.mean()), DECIMALS)
    result = {
        "evaluation_script_path": "kapso_evaluation/evaluate.py",
        "evaluation_output": f"auc: {score:.{DECIMALS}f}",
        "score": score,
        "metric": "auc",
        "direction": "maximize",
        "fidelity": "fast" if args.fast else "full",
        "n_train": len(train_rows),
        "n_test": len(test_rows),
        "per_item_scores": [round(float(value), 6) for value in placements],
    }
    RESULT_PATH.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    print(
        f"scored {len(test_rows)} test rows, trained on {len(train_rows)} ({result['fidelity']})",
        file=sys.stderr,
    )
    print(f"auc: {score:.{DECIMALS}f}")


if __name__ == "__main__":
    main()
