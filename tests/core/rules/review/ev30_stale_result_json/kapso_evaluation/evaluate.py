"""Latency evaluator: p95 latency in ms (lower is better) of the candidate's handler."""  # expect: EV017

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
    requests_file = Path("kapso_datasets/requests.jsonl")
    proc = subprocess.run(
        [sys.executable, "bench_handler.py", str(requests_file), "--count", "50" if args.fast else "2000"],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"bench_handler.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    samples = sorted(float(v) for v in proc.stdout.split())
    p95 = samples[int(0.95 * (len(samples) - 1))]
    line = f"p95_ms: {p95:.2f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": line, "score": p95})
    )
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
