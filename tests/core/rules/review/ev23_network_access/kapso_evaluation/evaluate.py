"""Geocoder evaluator: median error in km against reference coordinates."""

from __future__ import annotations

import argparse
import io
import json
import math
import subprocess
import sys
import urllib.request
from pathlib import Path

import numpy as np

from remote_refs import fetch_reference

SUITE = Path(__file__).resolve().parent
GAZETTEER_URL = "https://example.org/gazetteer/cities-v3.csv"


def haversine_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    with urllib.request.urlopen(GAZETTEER_URL, timeout=30) as response:  # expect: EV011
        text = response.read().decode("utf-8")
    gazetteer = np.genfromtxt(io.StringIO(text), delimiter=",", names=True, dtype=None, encoding="utf-8")
    queries = [str(name) for name in gazetteer["name"]][: 30 if args.fast else None]
    proc = subprocess.run([sys.executable, "geocode.py"], input="\n".join(queries), capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"geocode.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    guesses = [tuple(map(float, line.split(","))) for line in proc.stdout.splitlines()]
    refs = fetch_reference(queries)
    errors = sorted(haversine_km(g, refs[q]) for g, q in zip(guesses, queries))
    median = float(np.median(errors))
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"median_km: {median:.2f}", "score": median})
    )
    print(f"median_km: {median:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
