"""Anomaly detector evaluator: average precision on a resampled window of sensor data."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score

SUITE = Path(__file__).resolve().parent


def main() -> int:
    started = time.time()
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    readings = np.load("kapso_datasets/sensors.npz")
    X, y = readings["X"], readings["anomaly"]
    rng = np.random.default_rng(int(time.time()))  # expect: EV010
    window = rng.choice(len(y), size=2_000 if args.fast else 20_000, replace=False)
    np.save(SUITE / "window.npy", X[window])
    run = subprocess.run([sys.executable, "detect.py", str(SUITE / "window.npy")], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"detect.py failed: {run.stderr[-500:]}", file=sys.stderr)
        return 1
    scores = np.array([float(v) for v in run.stdout.split()])
    ap = float(average_precision_score(y[window], scores))
    print(f"scored {len(window)} readings in {time.time() - started:.1f}s", file=sys.stderr)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"ap: {ap:.4f}", "score": ap})
    )
    print(f"ap: {ap:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
