"""Lead scoring evaluator: precision at the top 10% of the candidate's scores."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    leads = pd.read_csv("kapso_datasets/leads.csv")
    if args.fast:
        leads = leads.sample(n=500, random_state=0)
    leads = leads.sample(frac=1.0)  # expect: EV009
    leads.drop(columns=["converted"]).to_csv(SUITE / "leads_in.csv", index=False)
    proc = subprocess.run(
        [sys.executable, "score_leads.py", str(SUITE / "leads_in.csv"), str(SUITE / "scores.csv")],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"score_leads.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    leads["score"] = pd.read_csv(SUITE / "scores.csv")["score"].to_numpy()
    top = leads.nlargest(max(1, len(leads) // 10), "score")
    precision = float(top["converted"].mean())
    (SUITE / "result.json").write_text(
        json.dumps(
            {"evaluation_script_path": __file__, "evaluation_output": f"precision_at_10pct: {precision:.4f}", "score": precision}
        )
    )
    print(f"precision_at_10pct: {precision:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
