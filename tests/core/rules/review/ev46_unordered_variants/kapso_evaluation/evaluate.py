"""Log anomaly evaluator: F1 over incident windows, reading every shard under kapso_datasets/logs/."""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent
LOGS = Path("kapso_datasets/logs")
SEVERITIES = {"warn", "error", "fatal"}


def shards() -> list[str]:
    found = []
    with os.scandir(LOGS) as entries:  # expect: EV013
        for entry in entries:
            if entry.name.endswith(".log"):
                found.append(entry.path)
    for path in LOGS.rglob("*.log.1"):  # expect: EV013
        found.append(str(path))
    for path in glob.iglob(str(LOGS / "archive" / "*.log")):  # expect: EV013
        found.append(path)
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    files = shards()[: 3 if args.fast else None]
    proc = subprocess.run([sys.executable, "detect.py", *files], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"detect.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    flagged = json.loads(proc.stdout)
    truth = json.loads(Path("kapso_datasets/incidents.json").read_text())
    weights = {}
    for level in SEVERITIES:  # expect: EV013
        weights[level] = len(weights) + 1
    tp = sum(1 for w in flagged if w in truth)
    f1 = 0.0 if tp == 0 else 2 * tp / (len(flagged) + len(truth))
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"f1: {f1:.4f}", "score": f1, "weights": weights})
    )
    print(f"f1: {f1:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
