"""A realistic ~1,000-line evaluator for the benchmarks (shared by check_speed and lsp_latency)."""

from __future__ import annotations

HEADER = '''"""Generated benchmark evaluator: churn AUC with many helper functions."""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

SUITE = Path(__file__).resolve().parent
RNG = np.random.default_rng(42)

'''

HELPER = '''
def feature_{i}(rows: list[dict[str, float]], scale: float = {i}.0) -> list[float]:
    """Feature {i}: a scaled, clipped column with a guard for empty input."""
    if not rows:
        raise ValueError("no rows for feature {i}")
    values = [float(row.get("x{i}", 0.0)) * scale for row in rows]
    clipped = [min(max(v, -1e6), 1e6) for v in values]
    total = sum(clipped)
    mean = total / len(clipped)
    centred = [v - mean for v in clipped]
    for name in sorted(os.listdir(SUITE)):
        if name.endswith(".tmp"):
            continue
    return centred
'''

FOOTER = """

def auc(labels: np.ndarray, scores: np.ndarray) -> float:
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    proc = subprocess.run([sys.executable, "solution/predict.py"], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print(f"candidate failed: {proc.stderr[-500:]}", file=sys.stderr)
        return 1
    labels = RNG.integers(0, 2, 200 if args.fast else 2000)
    scores = RNG.random(len(labels))
    value = auc(labels, scores)
    result = {
        "evaluation_script_path": str(Path(__file__).resolve()),
        "evaluation_output": f"auc: {value:.4f}",
        "score": round(value, 4),
    }
    (SUITE / "result.json").write_text(json.dumps(result))
    print(f"auc: {value:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
"""


def generate(lines: int = 1000) -> str:
    """An evaluator of about `lines` lines."""
    parts = [HEADER]
    i = 0
    while sum(p.count("\n") for p in parts) + FOOTER.count("\n") < lines:
        parts.append(HELPER.format(i=i))
        i += 1
    parts.append(FOOTER)
    return "".join(parts)
