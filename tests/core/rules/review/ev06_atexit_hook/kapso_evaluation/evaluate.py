"""Translation evaluator: corpus chrF of the candidate's translations."""

from __future__ import annotations

import argparse
import atexit
import json
import subprocess
import sys
import time
from pathlib import Path

STARTED = time.time()
SUITE = Path(__file__).parent


def _summary() -> None:
    print(f"evaluation finished in {time.time() - STARTED:.1f}s")


def char_ngrams(text: str, n: int) -> list[str]:
    return [text[i : i + n] for i in range(len(text) - n + 1)]


def chrf(hyp: str, ref: str, n: int = 4) -> float:
    h, r = char_ngrams(hyp, n), char_ngrams(ref, n)
    if not h or not r:
        return 0.0
    overlap = sum(min(h.count(g), r.count(g)) for g in sorted(dict.fromkeys(h)))
    p, rc = overlap / len(h), overlap / len(r)
    return 0.0 if p + rc == 0 else 2 * p * rc / (p + rc)


def main() -> int:
    atexit.register(_summary)  # expect: EV003
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    pairs = [json.loads(line) for line in Path("kapso_datasets/dev.jsonl").read_text().splitlines()]
    pairs = pairs[:25] if args.fast else pairs
    sources = "\n".join(p["src"] for p in pairs)
    done = subprocess.run(["python", "translate.py"], input=sources, capture_output=True, text=True)
    if done.returncode != 0:
        print("translate.py failed:\n" + done.stderr, file=sys.stderr)
        return 1
    hyps = done.stdout.splitlines()
    score = 100 * sum(chrf(h, p["ref"]) for h, p in zip(hyps, pairs)) / len(pairs)
    out = f"chrf: {score:.2f}"
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": out, "score": score}), "utf-8"
    )
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
