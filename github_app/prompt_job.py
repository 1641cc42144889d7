"""The prompt optimization job (SPEC §10 "Prompt tasks and feedback"): queued by the feedback API when a task's
feedback reaches its threshold, run by the worker like every job.

It reads the task from the default branch (never a pull request's config), optimizes on the feedback up to the
item that crossed the threshold (`core.campaign.prompt_source.optimize` decides: the split, the teacher and the
judge, the winner), records the outcome as a campaign the dashboard lists (the spend included), and delivers a
winner as the auto-PR `proctor/prompt/<task>` into the default branch through `delivery.deliver` (idempotent:
the open PR is updated by the next optimization, never duplicated). This module is the App's edge only.

The judge endpoint and its key are the app's own (`PROCTOR_JUDGE_BASE_URL`, `OPENAI_API_KEY` in the app's
environment), never a repository's `[judge] base_url`/`api_key_env`: a repository must not be able to send the
app's key elsewhere or read another of its variables. `free` counts only for a loopback endpoint.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.campaign.prompt_source import commit_rewrite, optimize, read_prompt, scoreboard
from github_app import hygiene
from github_app.feedback import PROMPT_EVENT
from github_app.feedback_store import ApiKey, FeedbackStore
from github_app.handlers import router
from github_app.prompt_tasks import read_default_branch

if TYPE_CHECKING:
    from core.campaign.prompt_source import Optimization
    from core.config import Config, PromptTaskConfig
    from core.judge import JudgeSettings
    from github_app.delivery import Delivered
    from github_app.router import JobContext
    from github_app.webhook import Event

log = logging.getLogger("proctor.app.prompt")
API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "PROCTOR_JUDGE_BASE_URL"


@dataclass(frozen=True)
class PromptJob:
    """The job's payload, as `feedback.queue_if_due` wrote it."""

    repo: str
    task: str
    batch: int
    last_id: int
    clone_url: str
    branch: str
    installation_id: int

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> PromptJob:
        return cls(
            str(payload["repo"]),
            str(payload["task"]),
            int(payload["batch"]),
            int(payload["last_id"]),
            str(payload["clone_url"]),
            str(payload["branch"]),
            int(payload["installation"]["id"]),
        )

    @property
    def campaign_id(self) -> str:
        safe = "".join(ch if ch.isalnum() else "-" for ch in self.repo.lower())
        return f"prompt-{safe}-{self.task}-{self.batch}"

    @property
    def delivery_branch(self) -> str:
        return f"proctor/prompt/{self.task}"


def judge_settings(config: Config, task: PromptTaskConfig, data_dir: Path) -> JudgeSettings:
    """The task's models, criteria, scale and budget; prices from the repository; endpoint and key the app's."""
    from core.judge import JudgeSettings
    from core.judge.client import is_loopback

    base_url = os.environ.get(BASE_URL_ENV, "").strip()
    settings = JudgeSettings.from_config(
        config.judge,
        model=task.judge_model,
        teacher_model=task.teacher_model,
        criteria=task.criteria,
        scale=task.scale,
        budget_usd=task.budget_usd,
    )
    free = config.judge.free and bool(base_url) and is_loopback(base_url)
    return replace(
        settings,
        base_url=base_url,
        api_key_env=API_KEY_ENV,
        free=free,
        cache_path=data_dir / "judge-cache.sqlite",
    )


@router.register(PROMPT_EVENT, action="optimize")
def on_prompt_task(event: Event, ctx: JobContext) -> None:
    run_prompt_job(PromptJob.from_payload(dict(event.payload)), ctx)


def run_prompt_job(job: PromptJob, ctx: JobContext) -> None:
    from core.judge import Judge

    previous = ctx.store.campaign(job.campaign_id)
    if previous is not None and previous.status == "completed":
        log.info("%s already ran: nothing to do", job.campaign_id)
        return
    key = ApiKey(job.repo, job.installation_id, job.clone_url, job.branch)
    branch = read_default_branch(ctx.data_dir, key, ctx.gh.token())
    task = branch.config.prompt_task_named(job.task)
    if task is None:
        log.warning("%s: the default branch no longer declares task %r", job.repo, job.task)
        return
    _record(ctx, job, status="running", head_sha=branch.commit)
    feedback = FeedbackStore(ctx.store.engine).upto(job.repo, task.name, job.last_id)
    prompt = read_prompt(branch.mirror, branch.commit, task.prompt_file)
    with Judge.open(judge_settings(branch.config, task, ctx.data_dir)) as judge:
        outcome = optimize(judge, task, prompt, feedback)
    board = scoreboard(outcome, job.campaign_id, branch.commit, job.branch)
    delivered = _deliver(ctx, job, task, outcome, branch.mirror, branch.commit) if outcome.best else None
    board["delivery"] = delivered.outcome if delivered is not None else None
    board["delivered_branch"] = delivered.branch if delivered is not None and delivered.delivered else None
    log.info(
        "%s: spent $%.4f of $%s; winner %s; delivery %s",
        job.campaign_id,
        outcome.spent_usd,
        outcome.budget_usd,
        outcome.best.label if outcome.best else "none",
        board["delivery"],
    )
    _record(
        ctx,
        job,
        status="completed",
        result=json.dumps(board),
        winner_commit=delivered.commit if delivered else "",
    )


def _record(ctx: JobContext, job: PromptJob, **values: Any) -> None:
    if ctx.store.campaign(job.campaign_id) is None:
        values |= {"repo": job.repo, "pr_number": 0, "job_id": ctx.job_id}
    ctx.store.save_campaign(job.campaign_id, **values)


def _deliver(
    ctx: JobContext, job: PromptJob, task: PromptTaskConfig, outcome: Optimization, mirror: Path, parent: str
) -> Delivered:
    from github_app.delivery import DeliveryRequest, deliver

    best = outcome.best
    assert best is not None and best.score is not None and outcome.baseline.score is not None
    message = f"Proctor: optimize the {task.name} prompt from feedback\n\nJudge score on the hold-out feedback: {outcome.baseline.score:.4f} -> {best.score:.4f}."
    commit = commit_rewrite(
        mirror,
        parent=parent,
        rel=task.prompt_file,
        text=best.prompt,
        ref=f"refs/proctor/prompt/{task.name}/{job.batch}",
        message=message,
    )
    title = (
        f"Proctor: a better {task.name} prompt (judge score {outcome.baseline.score:.4f} → {best.score:.4f})"
    )
    request = DeliveryRequest(
        repo=job.repo,
        remote_url=job.clone_url,
        git_dir=mirror,
        commit=commit,
        branch=job.delivery_branch,
        base=job.branch,
        title=title,
        body=pr_body(task, outcome),
        since=parent,
    )
    return deliver(ctx.gh, ctx.store, request)


def _criteria_header(outcome: Optimization) -> list[str]:
    names: list[str] = []
    for measured in (outcome.baseline, *outcome.candidates):
        names += [n for n in measured.criteria if n not in names]
    return names


def pr_body(task: PromptTaskConfig, outcome: Optimization) -> str:
    """The auto-PR's body: scores, Δ, per-criterion means, the spend, the splits; teacher text escaped."""
    best = outcome.best
    assert best is not None
    names = _criteria_header(outcome)
    header = (
        "| prompt | status | judge score | Δ vs current | "
        + " | ".join(hygiene.plain(n, 40) for n in names)
        + " |"
    )
    lines = [
        f"### Proctor: a better prompt for `{hygiene.plain(task.name, 64)}`",
        "",
        f"The teacher's rewrite of `{hygiene.plain(task.prompt_file, 200)}` scored **{best.score:.4f}** on "
        f"{outcome.holdout_size} hold-out feedback items, against **{outcome.baseline.score:.4f}** for the current prompt.",
        "",
        header,
        "|" + " --- |" * (4 + len(names)),
    ]
    rows = [(outcome.baseline, (None, None)), *zip(outcome.candidates, outcome.deltas, strict=True)]
    for measured, (delta, stderr) in rows:
        label = f"**{measured.label}** (winner)" if measured is best else measured.label
        score = f"{measured.score:.4f}" if measured.score is not None else "—"
        shown = "—" if delta is None else f"{delta:+.4f}" + (f" ± {stderr:.4f}" if stderr is not None else "")
        cells = [f"{measured.criteria[n]:.3f}" if n in measured.criteria else "—" for n in names]
        lines.append(f"| {label} | {measured.status} | {score} | {shown} | " + " | ".join(cells) + " |")
    budget = f"${outcome.budget_usd:.2f}" if outcome.budget_usd is not None else "no limit (a free endpoint)"
    lines += [
        "",
        f"Spent **${outcome.spent_usd:.4f}** of {budget} (teacher, task model and judge share one budget). "
        f"The teacher saw the task description and {outcome.search_size} search items only; the "
        f"{outcome.holdout_size} hold-out items were scored by `{hygiene.plain(task.judge_model, 80)}` on "
        f"{hygiene.plain(task.criteria, 200)} ({task.scale}).",
    ]
    if best.rationale:
        lines += ["", "The teacher's reason: " + hygiene.inline(best.rationale, 1000)]
    if outcome.stop_reason:
        lines += ["", "Stopped early: " + hygiene.inline(outcome.stop_reason, 300)]
    return "\n".join(lines)
