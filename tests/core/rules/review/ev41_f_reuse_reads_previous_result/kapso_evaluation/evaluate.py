"""Ad click evaluator: normalised entropy (lower is better); also reports the change since the last run."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent
RESULT = SUITE / "result.json"


def previous_score() -> float | None:
    if not RESULT.exists():
        return None
    with open(RESULT) as f:
        return json.load(f).get("score")


def save(ne: float, delta: float | None) -> None:
    with open(RESULT, "w") as f:
        f.write(json.dumps({"normalized_entropy": ne, "delta": delta}))  # expect: EV006


def normalized_entropy(clicks: list[int], probs: list[float]) -> float:
    eps = 1e-12
    ll = -sum(c * math.log(p + eps) + (1 - c) * math.log(1 - p + eps) for c, p in zip(clicks, probs))
    ctr = sum(clicks) / len(clicks)
    base = -(ctr * math.log(ctr) + (1 - ctr) * math.log(1 - ctr)) * len(clicks)
    return ll / base


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    rows = [json.loads(r) for r in Path("kapso_datasets/impressions.jsonl").read_text().splitlines()]
    rows = rows[:1000] if args.fast else rows
    proc = subprocess.run([sys.executable, "ctr_model.py"], input=json.dumps(rows), capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"ctr_model.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    probs = [float(p) for p in proc.stdout.split()]
    ne = normalized_entropy([r["clicked"] for r in rows], probs)
    before = previous_score()
    save(ne, None if before is None else ne - before)
    print(f"normalized_entropy: {ne:.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
