"""Churn evaluator: AUC of the candidate's churn scores on a fixed, stratified 80/20 split.

Contract: prints `auc: <value>` as the last stdout line, writes kapso_evaluation/result.json, exits
non-zero with a reason when the candidate misbehaves, and supports --fast for smoke checks.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

SEED = 42
SUITE = Path(__file__).resolve().parent
ROOT = SUITE.parent
RESULT = SUITE / "result.json"
FOREST_PARAMS = {"n_estimators": 200, "max_depth": 8, "random_state": SEED}

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
log = logging.getLogger("churn-eval")


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fast", action="store_true", help="smoke check on 400 rows")
    parser.add_argument("--seed", type=int, default=SEED)
    return parser.parse_args(argv)


def load(fast: bool) -> tuple[np.ndarray, np.ndarray]:
    table = np.loadtxt(ROOT / "kapso_datasets" / "churn.csv", delimiter=",", skiprows=1)
    if fast:
        table = table[np.random.choice(len(table), size=400, replace=False)]
    return table[:, :-1], table[:, -1]


def candidate_scores(features: np.ndarray) -> np.ndarray:
    with tempfile.TemporaryDirectory(prefix=f"churn-{uuid.uuid4().hex[:8]}-") as tmp:
        inp, out = Path(tmp) / "features.npy", Path(tmp) / "scores.npy"
        np.save(inp, features)
        proc = subprocess.run(
            [sys.executable, str(ROOT / "solution.py"), str(inp), str(out)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"solution.py exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
        scores = np.load(out)
    if scores.shape != (len(features),) or not np.isfinite(scores).all():
        raise RuntimeError(f"solution.py wrote {scores.shape} scores, expected {len(features)} finite values")
    return scores


def main(argv: list[str] | None = None) -> int:
    started = time.time()
    args = parse_args(argv)
    seed_everything(args.seed)
    X, y = load(args.fast)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=args.seed, stratify=y)
    reference = RandomForestClassifier(**FOREST_PARAMS).fit(X_train, y_train)
    try:
        scores = candidate_scores(X_test)
    except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as exc:
        print(f"candidate failed: {exc}", file=sys.stderr)
        return 1
    auc = float(roc_auc_score(y_test, scores))
    reference_auc = float(roc_auc_score(y_test, reference.predict_proba(X_test)[:, 1]))
    line = f"auc: {auc:.4f}"
    record = {
        "evaluation_script_path": str(Path(__file__).resolve()),
        "evaluation_output": line,
        "score": auc,
        "reference_auc": reference_auc,
        "fidelity": "fast" if args.fast else "full",
        "run_id": uuid.uuid4().hex,
        "finished_at": datetime.now(timezone.utc).isoformat(),
        "elapsed_s": round(time.time() - started, 2),
    }
    RESULT.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(line)
    log.info("done in %.1fs", time.time() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
