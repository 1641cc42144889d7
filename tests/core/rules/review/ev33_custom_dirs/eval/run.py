"""Energy demand evaluator: MAPE (lower is better) of the next-day forecast. Suite lives in eval/."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path("data")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    history = np.load(DATA / "demand_history.npy")
    actual = np.load(DATA / "holdout_demand.npy")  # expect: EV015
    days = 7 if args.fast else len(actual)
    np.save(HERE / "history.npy", history)
    proc = subprocess.run(
        [sys.executable, "forecaster.py", str(HERE / "history.npy"), str(days)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(f"forecaster.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    forecast = np.array([float(v) for v in proc.stdout.split()])
    mape = float(np.mean(np.abs((actual[:days] - forecast) / actual[:days])) * 100)
    (HERE / "result.json").write_text(
        json.dumps({"evaluation_script_path": "eval/run.py", "evaluation_output": f"mape: {mape:.3f}", "score": mape})
    )
    print(f"mape: {mape:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
