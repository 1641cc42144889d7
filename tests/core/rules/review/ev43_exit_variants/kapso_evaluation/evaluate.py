"""Invoice extraction evaluator: field-level F1 of the candidate's extracted JSON."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent


def extract(pdf: str) -> dict[str, str]:
    proc = subprocess.run([sys.executable, "extract.py", pdf], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise SystemExit(1)  # expect: EV012
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        exit()  # expect: EV012


def field_f1(pred: dict[str, str], gold: dict[str, str]) -> float:
    hits = sum(pred.get(k) == v for k, v in gold.items())
    if hits == 0:
        return 0.0
    precision, recall = hits / max(len(pred), 1), hits / len(gold)
    return 2 * precision * recall / (precision + recall)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    manifest = Path("kapso_datasets/invoices.json")
    if not manifest.exists():
        sys.exit(f"missing {manifest}: run `make data` first")
    invoices = json.loads(manifest.read_text())[: 5 if args.fast else None]
    try:
        scores = [field_f1(extract(inv["pdf"]), inv["fields"]) for inv in invoices]
    except Exception as exc:
        print(f"extraction failed: {exc}", file=sys.stderr)
        return 1
    f1 = sum(scores) / len(scores)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"field_f1: {f1:.4f}", "score": f1})
    )
    print(f"field_f1: {f1:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
