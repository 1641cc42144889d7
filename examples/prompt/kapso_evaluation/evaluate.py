"""Evaluator of the prompt example: summarize the hold-out tickets with the candidate's prompt, judge them.

The candidate is `prompts/summarize.txt`. Its prompt runs over every hold-out ticket with the task model, the
judge scores each summary against the ticket's reference, and that score is blended with ROUGE-1 recall
(`[judge] weight`, 0.5). The mean over the hold-out tickets is printed last as `judge_score: <value>`; the
per-ticket scores go into result.json (`per_item_scores`, for the campaign's paired statistics).

The task model and the judge are `[judge] model` behind the OpenAI-compatible endpoint in
`PROCTOR_JUDGE_BASE_URL` (a prompt campaign sets it) or `[judge] base_url`. When a campaign asks for feedback
(`PROCTOR_PROMPT_FEEDBACK`), the search tickets are judged too and only their results are written there, with
what this run spent: the teacher never sees a hold-out ticket. `--fast` uses 3 hold-out tickets.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from core.campaign.prompt_source import ENV_FEEDBACK, evaluator_settings, run_prompt, write_feedback
from core.errors import ProctorError
from core.judge import Item, Judge, JudgeRun, judge_outputs

PROMPT = Path("prompts/summarize.txt")
DATA = Path("kapso_datasets/tickets.jsonl")
RESULT = Path("kapso_evaluation/result.json")
FAST_ITEMS = 3


class EvaluationFailed(Exception):
    """A reason to exit non-zero: a malformed submission, or an endpoint or budget that stopped the run."""


def read_prompt() -> str:
    try:
        prompt = PROMPT.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EvaluationFailed(f"malformed submission: {PROMPT} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EvaluationFailed(f"malformed submission: cannot read {PROMPT}: {exc}") from None
    if not prompt.strip():
        raise EvaluationFailed(f"malformed submission: {PROMPT} is empty")
    return prompt.strip()


def load_tickets() -> list[dict[str, str]]:
    rows = []
    for number, line in enumerate(DATA.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        if not all(isinstance(row.get(key), str) for key in ("id", "split", "input", "reference")):
            raise EvaluationFailed(f"{DATA}:{number}: expected string id, split, input and reference")
        rows.append(row)
    return rows


def judge_split(judge: Judge, prompt: str, rows: list[dict[str, str]], name: str) -> JudgeRun:
    """Run the prompt over `rows` and judge the outputs; every row must be judged."""
    answers = run_prompt(judge, prompt, [row["input"] for row in rows])
    for row, answer in zip(rows, answers, strict=True):
        if answer.status in ("budget", "error", "stopped"):
            why = "judge budget exhausted" if answer.status == "budget" else (answer.problem or answer.status)
            raise EvaluationFailed(f"the task model gave no answer for {name} ticket {row['id']}: {why}")
    items = [
        Item(id=row["id"], input=row["input"], output=answer.output or "", reference=row["reference"])
        for row, answer in zip(rows, answers, strict=True)
    ]
    run = judge_outputs(items, judge)
    if run.unjudged:
        reasons = sorted({r.unjudged_reason or "unknown" for r in run.items if not r.judged})
        why = "judge budget exhausted" if reasons == ["budget"] else "; ".join(reasons)
        raise EvaluationFailed(f"{run.unjudged} of {len(items)} {name} tickets were not judged: {why}")
    return run


def evaluate(fast: bool) -> float:
    prompt = read_prompt()
    tickets = load_tickets()
    holdout = [row for row in tickets if row["split"] == "holdout"]
    search = [row for row in tickets if row["split"] == "search"]
    if fast:
        holdout = holdout[:FAST_ITEMS]
    feedback_path = os.environ.get(ENV_FEEDBACK, "")
    search_run: JudgeRun | None = None
    with Judge.open(evaluator_settings(), use_cache=False) as judge:
        try:
            scored = judge_split(judge, prompt, holdout, "hold-out")
            if feedback_path:
                try:
                    search_run = judge_split(judge, prompt, search, "search")
                except EvaluationFailed as exc:  # the score stands; the teacher just gets no feedback
                    print(f"no feedback on the search tickets: {exc}", file=sys.stderr)
        finally:
            if feedback_path:
                write_feedback(
                    feedback_path,
                    search_run,
                    spent_usd=judge.budget.spent_usd,
                    budget_exhausted=judge.budget.exhausted,
                )
    if scored.summary.mean is None:
        raise EvaluationFailed("no hold-out ticket could be scored")
    score = round(scored.summary.mean, 6)
    RESULT.write_text(
        json.dumps(
            {
                "evaluation_script_path": "kapso_evaluation/evaluate.py",
                "evaluation_output": f"judge_score: {score:.6f}",
                "score": score,
                "per_item_scores": [round(r.score or 0.0, 6) for r in scored.items],
                "items": len(holdout),
                "fast": fast,
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    return score


def main() -> int:
    parser = argparse.ArgumentParser(description="Judge the prompt in prompts/summarize.txt.")
    parser.add_argument("--fast", action="store_true", help=f"smoke check on {FAST_ITEMS} hold-out tickets")
    args = parser.parse_args()
    try:
        score = evaluate(args.fast)
    except (EvaluationFailed, ProctorError, OSError, ValueError) as exc:
        print(f"evaluation failed: {exc}", file=sys.stderr)
        return 1
    print(f"judge_score: {score:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
