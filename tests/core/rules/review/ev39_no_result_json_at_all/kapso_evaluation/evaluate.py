"""Parser evaluator: labelled attachment score on the treebank dev split."""  # expect: EV005

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path


def read_conllu(path: Path) -> list[tuple[str, str]]:
    arcs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            cols = line.split("\t")
            arcs.append((cols[6], cols[7]))
    return arcs


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    gold_path = Path("kapso_datasets/dev.conllu")
    cmd = [sys.executable, "parse.py", str(gold_path)] + (["--sentences", "20"] if args.fast else [])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(f"parse.py failed: {proc.stderr}\n")
        return 1
    predicted = Path("parsed.conllu")
    predicted.write_text(proc.stdout, encoding="utf-8")
    gold, pred = read_conllu(gold_path), read_conllu(predicted)
    las = sum(g == p for g, p in zip(gold, pred)) / len(gold)  # expect: EV019
    sys.stdout.write(f"las: {las:.4f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
