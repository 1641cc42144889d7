"""Claims triage evaluator: weighted F1 on the held-out claims."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score

SUITE = Path(__file__).resolve().parent
DATA = Path("kapso_datasets")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    features = DATA / "claims_test_features.csv"
    y_true = np.loadtxt("kapso_datasets/claims_test_labels.csv", dtype=str)  # expect: EV015
    with open(SUITE / "answers.json", encoding="utf-8") as fh:  # expect: EV015
        severity = json.load(fh)
    out = SUITE / "predictions.txt"
    proc = subprocess.run(
        [sys.executable, "triage.py", str(features), str(out)] + (["--limit", "100"] if args.fast else []),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"triage.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    predicted = out.read_text().split()
    y_true = y_true[: len(predicted)]
    weights = [severity.get(label, 1.0) for label in y_true]
    score = float(f1_score(y_true, predicted, average="weighted", sample_weight=weights))
    secret = os.environ.get("CLAIMS_AUDIT_LABELS")
    if secret:
        audit = np.loadtxt(secret, dtype=str)
        print(f"audit labels: {len(audit)}", file=sys.stderr)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"weighted_f1: {score:.4f}", "score": score})
    )
    print(f"weighted_f1: {score:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
