"""Document classifier evaluator: micro accuracy over the per-class folders of test documents."""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent
DOCS = Path("kapso_datasets/docs")


def collect(fast: bool) -> list[tuple[str, str]]:
    items = []
    for label in os.listdir(DOCS):  # expect: EV013
        files = glob.glob(str(DOCS / label / "*.txt"))  # expect: EV013
        for path in files[: 3 if fast else None]:
            items.append((path, label))
    return items


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    items = collect(args.fast)
    extra = [p for p in (DOCS.parent / "extra").iterdir() if p.suffix == ".txt"]  # expect: EV013
    print(f"{len(os.listdir(DOCS))} classes, {len(extra)} extra docs", file=sys.stderr)
    proc = subprocess.run(
        [sys.executable, "classify_docs.py"], input="\n".join(p for p, _ in items), capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(f"classify_docs.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    predicted = proc.stdout.splitlines()
    known = {label for _, label in items}
    per_class = {}
    for label in known:  # expect: EV013
        pairs = [(p, g) for p, (_, g) in zip(predicted, items) if g == label]
        per_class[label] = sum(p == g for p, g in pairs) / len(pairs)
    unknown = sum(p not in known for p in predicted)
    accuracy = sum(p == g for p, (_, g) in zip(predicted, items)) / len(items)
    (SUITE / "result.json").write_text(
        json.dumps(
            {
                "evaluation_script_path": __file__,
                "evaluation_output": f"accuracy: {accuracy:.4f}",
                "score": accuracy,
                "per_class": per_class,
                "unknown": unknown,
                "classes": sorted(known),
            }
        )
    )
    print(f"accuracy: {accuracy:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
