"""Air quality evaluator: MAE of the candidate's PM2.5 nowcast against the station readings."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    stations = np.genfromtxt("https://example.org/aq/stations-2024.csv", delimiter=",", skip_header=1)  # expect: EV011
    readings = np.loadtxt("https://example.org/aq/pm25-2024.txt")  # expect: EV011
    if args.fast:
        stations, readings = stations[:20], readings[:20]
    np.save(SUITE / "stations.npy", stations)
    proc = subprocess.run(
        [sys.executable, "nowcast.py", str(SUITE / "stations.npy")], capture_output=True, text=True, timeout=300
    )
    if proc.returncode != 0:
        print(f"nowcast.py failed: {proc.stderr[-300:]}", file=sys.stderr)
        return 1
    nowcast = np.array([float(v) for v in proc.stdout.split()])
    mae = float(np.mean(np.abs(nowcast - readings)))
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"mae: {mae:.3f}", "score": mae})
    )
    print(f"mae: {mae:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
