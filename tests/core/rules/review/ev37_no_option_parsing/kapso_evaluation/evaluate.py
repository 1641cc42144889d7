"""Keyword spotting evaluator: balanced accuracy on the 12-word command set."""  # expect: EV007

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import balanced_accuracy_score

SUITE = Path(__file__).resolve().parent


def main() -> int:
    clips = json.loads(Path("kapso_datasets/commands.json").read_text())
    proc = subprocess.run(
        [sys.executable, "spot.py"], input="\n".join(c["path"] for c in clips), capture_output=True, text=True
    )
    if proc.returncode != 0:
        print("spot.py failed:", proc.stderr, file=sys.stderr)
        return 1
    predicted = proc.stdout.split()
    score = float(balanced_accuracy_score(np.array([c["word"] for c in clips]), np.array(predicted)))
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"bacc: {score:.4f}", "score": score})
    )
    print(f"bacc: {score:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
