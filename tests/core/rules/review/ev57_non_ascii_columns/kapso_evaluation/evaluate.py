"""Évaluateur de sentiment — précision sur les avis « clients » 😀 (positions must count code points)."""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    avis = json.loads(Path("kapso_datasets/avis.json").read_text(encoding="utf-8"))
    étiquettes = ["négatif", "positif 😀"]; random.shuffle(étiquettes)  # expect: EV009
    avis = avis[:20] if args.fast else avis
    proc = subprocess.run(
        [sys.executable, "sentiment.py"], input="\n".join(a["texte"] for a in avis), capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(f"sentiment.py a échoué : {proc.stderr}", file=sys.stderr)
        return 1
    précision = sum(p == a["étiquette"] for p, a in zip(proc.stdout.split(), avis)) / len(avis)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"precision: {précision:.4f}", "score": précision})
    )
    print(f"precision: {précision:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
