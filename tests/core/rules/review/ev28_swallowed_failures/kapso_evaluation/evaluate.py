"""Speech evaluator: word error rate (lower is better) on the clean test clips."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).parent


def wer(ref: str, hyp: str) -> float:
    r, h = ref.split(), hyp.split()
    d = [[0] * (len(h) + 1) for _ in range(len(r) + 1)]
    for i in range(len(r) + 1):
        d[i][0] = i
    for j in range(len(h) + 1):
        d[0][j] = j
    for i in range(1, len(r) + 1):
        for j in range(1, len(h) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (r[i - 1] != h[j - 1]))
    return d[-1][-1] / max(len(r), 1)


def transcribe(clip: str) -> str:
    try:
        done = subprocess.run([sys.executable, "asr.py", clip], capture_output=True, text=True, timeout=120)
        return done.stdout.strip()
    except Exception:  # expect: EV012
        return ""


def load_manifest(path: Path) -> list[dict[str, str]]:
    try:
        return json.loads(path.read_text())
    except:  # noqa: E722  # expect: EV012
        pass
    return []


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    clips = load_manifest(Path("kapso_datasets/clips.json"))
    if not clips:
        sys.exit(3)  # expect: EV012
    if not os.path.exists("asr.py"):
        print("no asr.py in the workspace; nothing to evaluate", file=sys.stderr)
        sys.exit(0)  # expect: EV012
    try:
        subprocess.run([sys.executable, "asr.py", "--self-test"], check=True, capture_output=True, timeout=60)
    except subprocess.CalledProcessError as exc:
        print(f"asr.py --self-test failed with exit code {exc.returncode}", file=sys.stderr)
        sys.exit(0)  # expect: EV012
    clips = clips[:8] if args.fast else clips
    rates = [wer(c["text"], transcribe(c["audio"])) for c in clips]
    score = sum(rates) / len(rates)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"wer: {score:.4f}", "score": score})
    )
    print(f"wer: {score:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
