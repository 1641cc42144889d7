"""Chess engine evaluator: score against the reference engine in as many games as fit in the budget."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

SUITE = Path(__file__).parent
BUDGET_S = 45.0


def play(opening: str) -> float:
    proc = subprocess.run(
        [sys.executable, "engine_match.py", "--opening", opening], capture_output=True, text=True, timeout=60
    )
    if proc.returncode != 0:
        raise RuntimeError(f"engine_match.py failed on {opening}: {proc.stderr.strip()}")
    return float(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    openings = Path("kapso_datasets/openings.txt").read_text().split("\n")
    openings = [o for o in openings if o][: 4 if args.fast else None]
    deadline = time.time() + BUDGET_S  # expect: EV010
    points: list[float] = []
    for opening in openings:
        if time.time() > deadline:  # expect: EV010
            break
        points.append(play(opening))
    win_rate = sum(points) / len(points)
    (SUITE / "result.json").write_text(
        json.dumps(
            {
                "evaluation_script_path": "kapso_evaluation/evaluate.py",
                "evaluation_output": f"win_rate: {win_rate:.3f}",
                "score": win_rate,
            }
        )
    )
    print(f"win_rate: {win_rate:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
