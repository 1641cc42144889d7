"""GPU training-speed evaluator: validation accuracy after a fixed recipe."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    cmd = [sys.executable, "train.py", "--epochs", "1" if args.fast else "10", "--seed", "0"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"train.py failed: {proc.stderr[-1000:]}", file=sys.stderr)
        return proc.returncode
    metrics = json.loads(proc.stdout.strip().splitlines()[-1])
    acc = float(metrics["val_accuracy"])
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"val_accuracy: {acc:.4f}", "score": acc})
    )
    print(f"val_accuracy: {acc:.4f}")
    subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv"])  # expect: EV003
    return 0


if __name__ == "__main__":
    sys.exit(main())
