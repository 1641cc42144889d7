"""Bandit policy evaluator: average reward of the candidate's policy in the replay simulator."""

from __future__ import annotations

import argparse
import json
import random
import secrets
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import numpy as np
from sklearn.utils import resample

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    random.seed(secrets.randbelow(2**31))  # expect: EV010
    logs = np.load("kapso_datasets/replay_logs.npy")
    episodes = resample(logs, n_samples=200 if args.fast else 5000, random_state=datetime.now().microsecond)  # expect: EV010
    np.save(SUITE / "episodes.npy", episodes)
    proc = subprocess.run([sys.executable, "policy.py", str(SUITE / "episodes.npy")], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"policy.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    rewards = [float(r) for r in proc.stdout.split()]
    probe = random.sample(rewards, k=min(10, len(rewards)))
    reward = sum(rewards) / len(rewards)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"reward: {reward:.4f}", "score": reward, "probe": probe})
    )
    print(f"reward: {reward:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
