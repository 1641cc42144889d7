"""Forecast evaluator: sMAPE (lower is better) over the 28-day horizon."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

RESULT = Path(__file__).parent / "result.json"


def smape(actual: np.ndarray, forecast: np.ndarray) -> float:
    denom = np.abs(actual) + np.abs(forecast)
    ratio = np.where(denom == 0, 0.0, 2 * np.abs(forecast - actual) / np.where(denom == 0, 1, denom))
    return float(100 * ratio.mean())


def report(value: float) -> None:
    print(f"smape: {value:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    history = np.load("kapso_datasets/sales_history.npy")
    actual = np.load("kapso_datasets/sales_future.npy")
    if args.fast:
        history, actual = history[:10], actual[:10]
    np.save("/tmp/history.npy", history)
    subprocess.run([sys.executable, "forecast.py", "/tmp/history.npy", "/tmp/fc.npy"], check=True)
    value = smape(actual, np.load("/tmp/fc.npy"))
    RESULT.write_text(
        json.dumps(
            {
                "evaluation_script_path": str(Path(__file__)),
                "evaluation_output": f"smape: {value:.3f}",
                "score": value,
            }
        )
    )
    print("evaluation complete")  # expect: EV002
    return 0


if __name__ == "__main__":
    sys.exit(main())
