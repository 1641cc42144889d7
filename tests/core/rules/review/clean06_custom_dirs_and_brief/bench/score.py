"""Wind power evaluator: MAE in MW of the candidate's day-ahead forecast (suite in bench/, data in data/)."""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
DATA = BENCH.parent / "data" / "turbines_2023.csv"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    with DATA.open(newline="") as fh:
        power = [float(row["power"]) for row in csv.DictReader(fh)]
    cut = int(len(power) * 0.8)
    history, future = power[:cut], power[cut:]
    horizon = 24 if args.fast else len(future)
    proc = subprocess.run(
        [sys.executable, "forecast.py", "--horizon", str(horizon)],
        input="\n".join(map(str, history)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        print(f"forecast.py failed ({proc.returncode}): {proc.stderr[-300:]}", file=sys.stderr)
        return 1
    forecast = [float(v) for v in proc.stdout.split()]
    if len(forecast) != horizon:
        print(f"forecast.py returned {len(forecast)} values, expected {horizon}", file=sys.stderr)
        return 1
    mae = sum(abs(f - a) for f, a in zip(forecast, future)) / horizon
    line = f"mae: {mae:.4f}"
    (BENCH / "result.json").write_text(
        json.dumps({"evaluation_script_path": "bench/score.py", "evaluation_output": line, "score": mae})
    )
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
