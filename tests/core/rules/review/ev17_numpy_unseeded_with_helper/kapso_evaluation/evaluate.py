"""Recommender evaluator: NDCG@20 of the candidate's rankings on sampled users."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from ranking_metrics import ndcg_at_k, resample_users

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    interactions = np.load("kapso_datasets/interactions.npy")
    users = np.unique(interactions[:, 0])
    rng = np.random.default_rng()  # expect: EV009
    sampled = rng.choice(users, size=100 if args.fast else 2000, replace=False)
    order = np.random.permutation(len(sampled))  # expect: EV009
    sampled = sampled[order]
    np.save(SUITE / "users.npy", sampled)
    proc = subprocess.run(
        [sys.executable, "recommend.py", str(SUITE / "users.npy")], capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(f"recommend.py failed: {proc.stderr[-300:]}", file=sys.stderr)
        return 1
    rankings = json.loads(proc.stdout)
    value = ndcg_at_k(rankings, interactions, k=20)
    spread = resample_users(rankings, interactions)
    (SUITE / "result.json").write_text(
        json.dumps(
            {
                "evaluation_script_path": str(Path(__file__)),
                "evaluation_output": f"ndcg_at_20: {value:.4f}",
                "score": value,
                "spread": spread,
            }
        )
    )
    print(f"ndcg_at_20: {value:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
