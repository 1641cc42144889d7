"""Compression evaluator: bits per byte; the metric is (wrongly) printed only when the codec fails."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    corpus = Path("kapso_datasets/enwik_sample.txt").read_bytes()
    corpus = corpus[:100_000] if args.fast else corpus
    bpb = 8.0
    try:
        proc = subprocess.run([sys.executable, "codec.py"], input=corpus, capture_output=True, timeout=600, check=True)
        bpb = 8 * len(proc.stdout) / len(corpus)
    except subprocess.CalledProcessError as exc:
        print(f"codec.py failed with {exc.returncode}", file=sys.stderr)
        print(f"bpb: {bpb:.4f}")
        return 1
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"bpb: {bpb:.4f}", "score": bpb})
    )
    print(f"compressed to {bpb:.4f} bits per byte")  # expect: EV002
    return 0


if __name__ == "__main__":
    sys.exit(main())
