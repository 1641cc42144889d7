"""OCR evaluator: character error rate (lower is better) on the scanned invoices."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RESULT = Path("kapso_evaluation") / "result.json"


def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    manifest = json.loads(Path("kapso_datasets/invoices/manifest.json").read_text())
    items = manifest["items"][:10] if args.fast else manifest["items"]
    work = Path(tempfile.mkdtemp(prefix="ocr-eval-"))
    try:
        errors = chars = 0
        for item in items:
            out = work / (item["id"] + ".txt")
            subprocess.run(
                [sys.executable, "ocr.py", item["image"], str(out)], check=True, capture_output=True
            )
            errors += edit_distance(out.read_text(), item["text"])
            chars += len(item["text"])
        cer = errors / chars
        RESULT.write_text(
            json.dumps(
                {
                    "evaluation_script_path": "kapso_evaluation/evaluate.py",
                    "evaluation_output": f"cer: {cer:.5f}",
                    "score": cer,
                }
            )
        )
        print(f"cer: {cer:.5f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        print("cleaned up", work)  # expect: EV003
    return 0


if __name__ == "__main__":
    sys.exit(main())
