"""Generate kapso_datasets/churn.csv and the hold-out labels: a synthetic churn table from a fixed seed.

Run from anywhere: `python examples/churn/make_data.py`. The same seed always writes the same bytes, so the
committed files can be checked against this script. The rows the evaluator holds out (shuffled with
numpy's default_rng(42), the first 20 %) keep an empty `churned` in churn.csv; their labels go to
`../churn-holdout/churn_labels.csv`, outside the workspace, where only the evaluator's sandbox sees them. Churn follows a logistic model with a few non-linear
effects (log tenure, a hinge on support calls, a contract x fibre interaction), so a plain linear model on the
raw columns leaves room for an honest improvement.
"""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path

import numpy as np

SEED = 20240611
ROWS = 3000
HEADER = (
    "customer_id",
    "tenure_months",
    "contract",
    "internet_service",
    "monthly_charges",
    "total_charges",
    "support_calls",
    "payment_method",
    "paperless_billing",
    "senior_citizen",
    "churned",
)
OUT = Path(__file__).resolve().parent / "kapso_datasets" / "churn.csv"
HOLDOUT = Path(__file__).resolve().parent.parent / "churn-holdout" / "churn_labels.csv"
SPLIT_SEED = 42  # the evaluator's split (kapso_evaluation/evaluate.py)
TEST_FRACTION = 0.2


def generate(rows: int = ROWS, seed: int = SEED) -> tuple[str, str]:
    """(churn.csv with the held-out rows' labels blank, churn_labels.csv with those labels)."""
    table = _table(rows, seed)
    lines = table.splitlines()
    order = np.random.default_rng(SPLIT_SEED).permutation(rows)
    held_out = set(int(i) for i in order[: round(rows * TEST_FRACTION)])
    public, labels = [lines[0]], ["customer_id,churned"]
    for i, line in enumerate(lines[1:]):
        if i in held_out:
            head, label = line.rsplit(",", 1)
            public.append(head + ",")
            labels.append(f"{head.split(',', 1)[0]},{label}")
        else:
            public.append(line)
    return "\n".join(public) + "\n", "\n".join(labels) + "\n"


def _table(rows: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    contract = rng.choice(["month_to_month", "one_year", "two_year"], size=rows, p=[0.55, 0.25, 0.20])
    base_tenure = {"month_to_month": 14.0, "one_year": 30.0, "two_year": 46.0}
    tenure = np.array([min(72, max(1, int(rng.gamma(2.0, base_tenure[c] / 2.0)) + 1)) for c in contract])
    internet = rng.choice(["none", "dsl", "fiber_optic"], size=rows, p=[0.2, 0.35, 0.45])
    base_charge = {"none": 22.0, "dsl": 55.0, "fiber_optic": 85.0}
    monthly = np.array([base_charge[i] for i in internet]) + rng.normal(0.0, 9.0, rows)
    monthly = np.clip(monthly, 18.0, 120.0).round(2)
    total = (monthly * tenure * rng.uniform(0.93, 1.05, rows)).round(2)
    senior = (rng.random(rows) < 0.16).astype(int)
    paperless = rng.random(rows) < 0.6
    payment = rng.choice(
        ["electronic_check", "mailed_check", "bank_transfer", "credit_card"],
        size=rows,
        p=[0.34, 0.22, 0.22, 0.22],
    )
    calls = rng.poisson(1.2 + 0.8 * (internet == "fiber_optic") + 0.6 * senior)

    logit = (
        0.2
        + 1.1 * (contract == "month_to_month")
        - 0.9 * (contract == "two_year")
        - 1.2 * np.log1p(tenure)
        + 0.018 * (monthly - 65.0)
        + 0.15 * calls
        + 1.1 * np.maximum(calls - 3, 0)
        + 0.35 * (internet == "fiber_optic")
        + 0.8 * ((contract == "month_to_month") & (internet == "fiber_optic"))
        + 0.45 * (payment == "electronic_check")
        + 0.3 * senior
        + 0.2 * paperless
    )
    churned = (rng.random(rows) < 1.0 / (1.0 + np.exp(-logit))).astype(int)

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    for i in range(rows):
        writer.writerow(
            [
                f"C{i + 1:05d}",
                int(tenure[i]),
                contract[i],
                internet[i],
                f"{monthly[i]:.2f}",
                f"{total[i]:.2f}",
                int(calls[i]),
                payment[i],
                "yes" if paperless[i] else "no",
                int(senior[i]),
                int(churned[i]),
            ]
        )
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="where to write the CSV")
    parser.add_argument("--holdout", type=Path, default=None, help="where to write the hold-out labels")
    args = parser.parse_args()
    out = args.out or OUT
    # Given --out alone, the labels go next to it (never over the committed ones).
    holdout = args.holdout or (out.with_name(HOLDOUT.name) if args.out else HOLDOUT)
    text, labels = generate()
    for path, content in ((out, text), (holdout, labels)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    held = len(labels.splitlines()) - 1
    print(f"wrote {out} ({ROWS} rows, {held} of them held out) and their labels to {holdout}")


if __name__ == "__main__":
    main()
