"""One prompt optimization on feedback an application logged (SPEC §10 "Prompt tasks and feedback", §7
Teacher), without I/O of its own beyond the judge's endpoint: the App's prompt job fetches the feedback, records
the outcome and delivers the winner; this module decides.

The feedback is split once, by a hash of each item's id, into a **search** split and a **hold-out** split. The
teacher (`core.judge.teacher.propose_rewrites`) sees the task description, the current prompt, the judge's
feedback on the current prompt's outputs for search items (`feedback_from_run`) and the logged feedback on
search items — never a hold-out input, output or score. Every prompt (the current one and each rewrite) then
answers the hold-out inputs through `task_model.run_prompt` and the judge scores those answers
(`core.judge.run.judge_outputs`) with the task's criteria and scale. One `Judge` serves the task model, the
judge and the teacher, so they share one hard budget (`budget_usd`): once it is spent no call starts. A prompt
with any hold-out item left unanswered or unjudged is `failed`, never a winner; the winner is picked by the
campaign's own rule (`core.campaign.model.winner_over`, the one a prompt campaign picks its parents by).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from core.campaign.model import CandidateRecord, winner_over
from core.campaign.prompt_source.task_model import run_prompt

if TYPE_CHECKING:
    from core.config import PromptTaskConfig
    from core.judge.engine import Judge
    from core.judge.run import JudgeRun

HOLDOUT_SHARE = 0.3
REWRITES = 3
METRIC = "judge_score"
_EXCERPT = 300


class LoggedFeedback(Protocol):
    """One feedback item as the application logged it (the App's store holds them)."""

    @property
    def id(self) -> int: ...
    @property
    def repo(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def inputs(self) -> Any: ...
    @property
    def output(self) -> str: ...
    @property
    def score(self) -> float | None: ...
    @property
    def source(self) -> str | None: ...


@dataclass(frozen=True)
class Split:
    search: tuple[LoggedFeedback, ...]
    holdout: tuple[LoggedFeedback, ...]


def _bucket(item: LoggedFeedback) -> float:
    digest = hashlib.sha256(f"{item.repo}\0{item.task}\0{item.id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_feedback(items: Sequence[LoggedFeedback], share: float = HOLDOUT_SHARE) -> Split:
    """A stable split: an item stays in its split as more feedback arrives (its id decides, not the count)."""
    holdout = tuple(i for i in items if _bucket(i) < share)
    search = tuple(i for i in items if _bucket(i) >= share)
    if not holdout and len(search) > 1:
        holdout, search = search[-1:], search[:-1]
    if not search and len(holdout) > 1:
        search, holdout = holdout[:1], holdout[1:]
    return Split(search, holdout)


def input_text(inputs: Any) -> str:
    return inputs if isinstance(inputs, str) else json.dumps(inputs, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class Measured:
    """One prompt on the hold-out split: `scored` with its mean and per-item scores, or `failed` saying why."""

    label: str
    prompt: str
    status: str
    score: float | None = None
    per_item: tuple[float, ...] = ()
    criteria: dict[str, float] = field(default_factory=dict)
    reason: str = ""
    rationale: str = ""


def criteria_means(run: JudgeRun) -> dict[str, float]:
    values: dict[str, list[float]] = {}
    for result in run.items:
        for sample in result.samples:
            for name, value in sample.criteria.items():
                values.setdefault(name, []).append(value)
    return {name: math.fsum(v) / len(v) for name, v in values.items()}


def _answer_and_judge(
    judge: Judge, prompt: str, items: Sequence[LoggedFeedback]
) -> tuple[JudgeRun | None, str]:
    from core.judge.run import Item, judge_outputs

    inputs = [input_text(i.inputs) for i in items]
    answers = run_prompt(judge, prompt, inputs)
    missing = [a for a in answers if a.output is None]
    if missing:
        return None, f"{len(missing)} of {len(items)} inputs got no answer ({missing[0].status})"
    outputs = [
        Item(str(i.id), text, a.output or "") for i, text, a in zip(items, inputs, answers, strict=True)
    ]
    return judge_outputs(outputs, judge), ""


def measure(
    judge: Judge, label: str, prompt: str, holdout: Sequence[LoggedFeedback], rationale: str = ""
) -> Measured:
    run, problem = _answer_and_judge(judge, prompt, holdout)
    if run is None:
        return Measured(label, prompt, "failed", reason=problem, rationale=rationale)
    if run.unjudged or run.summary.mean is None:
        why = "the budget was spent" if run.budget_exhausted else run.last_problem or "no verdict"
        reason = f"{run.unjudged} of {len(holdout)} hold-out answers were not judged ({why})"
        return Measured(label, prompt, "failed", reason=reason, rationale=rationale)
    per_item = tuple(float(r.score) for r in run.items if r.score is not None)
    return Measured(
        label, prompt, "scored", run.summary.mean, per_item, criteria_means(run), rationale=rationale
    )


def teacher_feedback(judge: Judge, prompt: str, search: Sequence[LoggedFeedback]) -> str:
    """What the teacher reads about the current prompt: search items only (the judge's view, the logs')."""
    from core.judge.teacher import feedback_from_run

    run, problem = _answer_and_judge(judge, prompt, search)
    lines = (
        [feedback_from_run(run)] if run is not None else [f"The judge could not score the prompt: {problem}."]
    )
    logged = sorted((i for i in search if i.score is not None), key=lambda i: i.score or 0.0)[:5]
    if logged:
        lines.append("Feedback logged by the application on outputs of the current prompt (lowest first):")
    for item in logged:
        text = input_text(item.inputs)[:_EXCERPT]
        lines.append(
            f"- score {item.score:.2f} ({item.source or 'unknown source'}): input {text!r} → output {item.output[:_EXCERPT]!r}"
        )
    return "\n".join(line for line in lines if line)


@dataclass(frozen=True)
class Optimization:
    baseline: Measured
    candidates: tuple[Measured, ...]
    winner: int | None  # index into candidates
    deltas: tuple[tuple[float | None, float | None], ...]  # (delta, stderr) per candidate
    spent_usd: float
    budget_usd: float | None
    stop_reason: str
    search_size: int
    holdout_size: int

    @property
    def best(self) -> Measured | None:
        return self.candidates[self.winner] if self.winner is not None else None


def _record(index: int, m: Measured) -> CandidateRecord:
    return CandidateRecord(
        index=index,
        ref=m.label,
        commit=None,
        parent_ref="current",
        status="scored" if m.status == "scored" else "failed",
        score=m.score,
        metric_name=METRIC,
        reason=m.reason,
        per_item_scores=m.per_item or None,
    )


def pick(
    baseline: Measured, candidates: Sequence[Measured]
) -> tuple[int | None, tuple[tuple[float | None, float | None], ...]]:
    """The campaign engine's rule: the best scored rewrite that beats the current prompt beyond noise."""
    records = [_record(n, c) for n, c in enumerate(candidates, 1)]
    winner, rows = winner_over(_record(0, baseline), records, "maximize")
    deltas = tuple((row.delta, row.stderr) for row in rows)
    if baseline.status != "scored" or winner is None:
        return None, deltas
    return winner.index - 1, deltas


def optimize(
    judge: Judge,
    task: PromptTaskConfig,
    prompt: str,
    logged: Sequence[LoggedFeedback],
    rewrites: int = REWRITES,
) -> Optimization:
    """Split the feedback, measure the current prompt on the hold-out, ask the teacher (search items only) for
    rewrites, measure them, pick the winner."""
    from core.judge.teacher import propose_rewrites

    split = split_feedback(logged)
    baseline = measure(judge, "current", prompt, split.holdout)
    candidates: list[Measured] = []
    stop = ""
    if baseline.status == "scored":
        feedback = teacher_feedback(judge, prompt, split.search)
        proposals = propose_rewrites(
            prompt, task=task.description or task.name, feedback=feedback, count=rewrites, judge=judge
        )
        stop = proposals.problem or ""
        for n, rewrite in enumerate(proposals.rewrites, 1):
            if judge.budget.exhausted:
                stop = "the budget was spent before every rewrite was measured"
                break
            candidates.append(
                measure(judge, f"rewrite-{n}", rewrite.prompt, split.holdout, rewrite.rationale)
            )
    else:
        stop = f"the current prompt could not be measured: {baseline.reason}"
    if judge.budget.exhausted and not stop:
        stop = "the budget was spent"
    winner, deltas = pick(baseline, candidates)
    return Optimization(
        baseline,
        tuple(candidates),
        winner,
        deltas,
        judge.snapshot().spent_usd,
        judge.budget.cap_usd,
        stop,
        len(split.search),
        len(split.holdout),
    )


def scoreboard(opt: Optimization, campaign_id: str, commit: str, branch: str) -> dict[str, Any]:
    """The optimization as the campaign JSON (SPEC §5.3 schema 1) the dashboard reads, plus the spend."""
    best = opt.best
    return {
        "schema": 1,
        "campaign_id": campaign_id,
        "metric": {"name": METRIC, "direction": "maximize"},
        "baseline": {"ref": branch, "commit": commit, "score": opt.baseline.score},
        "candidates": [
            {
                "ref": c.label,
                "commit": None,
                "status": c.status,
                "score": c.score,
                "delta": d,
                "stderr": s,
                "findings": [],
                "reason": c.reason,
            }
            for c, (d, s) in zip(opt.candidates, opt.deltas, strict=True)
        ],
        "winner": {"ref": best.label, "commit": None, "score": best.score} if best else None,
        "rejected_candidates": 0,
        "failed_candidates": sum(c.status == "failed" for c in opt.candidates),
        "delivered_branch": None,
        "spent_usd": opt.spent_usd,
        "budget_usd": opt.budget_usd,
        "stop_reason": opt.stop_reason,
        "search_items": opt.search_size,
        "holdout_items": opt.holdout_size,
    }
