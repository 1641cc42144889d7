"""The teacher (SPEC §7 Teacher, §5.1 `prompt` candidates): propose rewrites of a prompt from the task
description and the judge's feedback on the current best. Each rewrite becomes one candidate in a campaign.

The teacher shares the judge's cache and budget (its price is looked up for `teacher_model`, failing closed
like the judge's). Duplicates and unchanged copies of the prompt are dropped; if a round returns too few new
rewrites, the teacher is asked again for the rest, showing what it already proposed, at most `rounds` times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.judge.engine import Judge, Question
from core.judge.parse import Rewrite, parse_rewrites
from core.judge.prompts import TEACHER_TEMPLATE_VERSION, teacher_messages, teacher_schema
from core.judge.run import JudgeRun

TEACHER_TEMPERATURE = 0.8  # rewrites should differ from each other; the judge itself samples at 0
TEACHER_MAX_TOKENS = 4096


@dataclass(frozen=True)
class Proposals:
    rewrites: tuple[Rewrite, ...]
    cost_usd: float
    parse_failures: int
    budget_exhausted: bool
    problem: str | None = None  # why fewer than requested came back, when they did


def _key(text: str) -> str:
    return " ".join(text.split())


def propose_rewrites(
    prompt: str, *, task: str, feedback: str, count: int, judge: Judge, rounds: int = 3
) -> Proposals:
    """Up to `count` distinct rewrites of `prompt` from the teacher model."""
    found: list[Rewrite] = []
    seen = {_key(prompt)}
    cost = 0.0
    failures = 0
    problem: str | None = None
    for round_index in range(rounds):
        missing = count - len(found)
        if missing <= 0:
            break
        question = Question(
            messages=teacher_messages(
                prompt=prompt,
                task=task,
                feedback=feedback,
                count=missing,
                avoid=tuple(r.prompt for r in found),
            ),
            template_version=TEACHER_TEMPLATE_VERSION,
            rotation=f"round{round_index}",
            sample=round_index,
            schema_name="prompt_rewrites",
            schema=teacher_schema(),
            model=judge.settings.teacher_model,
            temperature=TEACHER_TEMPERATURE,
            max_tokens=max(TEACHER_MAX_TOKENS, judge.settings.max_tokens),
        )
        outcome = judge.ask(question, parse_rewrites)
        cost += outcome.cost_usd
        if outcome.status == "parse_failed":
            failures += 1
        if not isinstance(outcome.value, list):
            problem = outcome.problem or outcome.status
            if outcome.status in ("budget", "error", "stopped"):
                break
            continue
        for rewrite in outcome.value:
            if _key(rewrite.prompt) not in seen and len(found) < count:
                seen.add(_key(rewrite.prompt))
                found.append(rewrite)
    if len(found) < count and problem is None:
        problem = f"the teacher proposed {len(found)} distinct rewrites of the {count} asked for"
    return Proposals(
        rewrites=tuple(found),
        cost_usd=cost,
        parse_failures=failures,
        budget_exhausted=judge.budget.exhausted,
        problem=problem if len(found) < count else None,
    )


def feedback_from_run(run: JudgeRun, *, worst: int = 3, excerpt: int = 400) -> str:
    """The judge's feedback on a prompt's outputs, as the teacher reads it: scores, weak criteria, worst items."""
    lines = []
    if run.summary.mean is not None:
        spread = f" ± {run.summary.stderr:.3f}" if run.summary.stderr is not None else ""
        lines.append(f"Mean score {run.summary.mean:.3f}{spread} (0 worst, 1 best) over {run.judged} items.")
    per_criterion: dict[str, list[float]] = {}
    for result in run.items:
        for sample in result.samples:
            for name, value in sample.criteria.items():
                per_criterion.setdefault(name, []).append(value)
    if per_criterion:
        ordered = sorted(per_criterion.items(), key=lambda kv: math.fsum(kv[1]) / len(kv[1]))
        lines.append(
            "Mean by criterion (weakest first): "
            + ", ".join(f"{name} {math.fsum(vals) / len(vals):.2f}" for name, vals in ordered)
            + "."
        )
    scored = sorted((r for r in run.items if r.score is not None), key=lambda r: r.score or 0.0)
    for result in scored[:worst]:
        reasons = [s.reasoning for s in result.samples if s.reasoning]
        reason = reasons[0][:excerpt] if reasons else "(no reasoning given)"
        lines.append(f"Low-scoring example {result.item.id!r} (score {result.score:.2f}): {reason}")
    if run.parse_failures:
        lines.append(f"{run.parse_failures} judge answers could not be parsed.")
    return "\n".join(lines)
