"""Audio tagging evaluator: mean average precision over the clips in kapso_datasets/clips/."""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score

SUITE = Path(__file__).resolve().parent
CLIPS = Path("kapso_datasets/clips")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    clips = sorted(name for name in os.listdir(CLIPS) if name.endswith(".wav"))
    tags = sorted({p.stem.split("_")[0] for p in CLIPS.iterdir()})
    sidecars = sorted(map(os.path.basename, glob.glob(str(CLIPS / "*.json"))))
    if args.fast:
        clips = clips[:10]
    proc = subprocess.run(
        [sys.executable, "tagger.py", *[str(CLIPS / c) for c in clips]], capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(f"tagger.py failed: {proc.stderr[-300:]}", file=sys.stderr)
        return 1
    scores = np.array(json.loads(proc.stdout))
    truth = np.array([[c.split("_")[0] == t for t in tags] for c in clips], dtype=int)
    value = float(average_precision_score(truth, scores, average="macro"))
    (SUITE / "result.json").write_text(
        json.dumps(
            {
                "evaluation_script_path": __file__,
                "evaluation_output": f"map: {value:.4f}",
                "score": value,
                "sidecars": sidecars,
            }
        )
    )
    print(f"map: {value:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
