"""Toxic span evaluator: character-level F1, with several label files read the wrong way."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

SUITE = Path(__file__).resolve().parent
DATA = Path("kapso_datasets")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    spans = pd.read_csv(DATA / "ground_truth.csv")  # expect: EV015
    y_test = np.load(os.path.join("kapso_datasets", "y_test.npy"))  # expect: EV015
    with open(os.path.join("kapso_datasets", "holdout", "spans.json")) as fh:  # expect: EV015
        extra = json.load(fh)
    texts = pd.read_csv(DATA / "texts.csv")
    if args.fast:
        texts = texts.head(50)
    proc = subprocess.run(
        [sys.executable, "spans.py"], input=texts.to_json(orient="records"), capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(f"spans.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    predicted = json.loads(proc.stdout)
    pd.DataFrame({"predicted_labels": [json.dumps(p) for p in predicted]}).to_csv(
        SUITE / "predicted_labels.csv", index=False
    )
    gold = {int(r.id): set(json.loads(r.spans)) for r in spans.itertuples()} | extra
    hits = sum(len(set(p["chars"]) & gold.get(p["id"], set())) for p in predicted)
    total = sum(len(p["chars"]) for p in predicted) + sum(len(g) for g in gold.values())
    f1 = float(2 * hits / total) if total else 0.0
    f1 *= float(y_test.mean() >= 0)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"span_f1: {f1:.4f}", "score": f1})
    )
    print(f"span_f1: {f1:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
