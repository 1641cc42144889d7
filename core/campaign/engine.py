"""`run_campaign`: measure candidates against a baseline under one evaluator version (SPEC §5).

The parent process plans (core/campaign/setup.py), schedules measurements on a process pool or a job queue
(core/campaign/scheduler.py), runs the external iteration evaluator, appends history and checkpoints after
every candidate; workers only measure (core/campaign/worker.py). The scoreboard is derived from the checkpoint
(core/campaign/results.py). The baseline's config, command and suite are the only ones ever used: a candidate
cannot choose how it is measured.

`load_result` gives a campaign's result without measuring: the scoreboard is derived from the checkpoint alone,
so a resumed or reloaded campaign gives the same one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.atomic import atomic_write_json, atomic_write_text
from core.campaign.arguments import CampaignArgs, PromptArgs
from core.campaign.external import IterationEvaluator
from core.campaign.model import CampaignResult, CandidateRecord, Direction, compare_rows, pick_winner
from core.campaign.recording import ProgressCallback
from core.campaign.scheduler import Scheduler
from core.campaign.setup import prepare, with_queue, workspace_root
from core.campaign.state import (
    CampaignState,
    campaign_dir,
    check_campaign_id,
    latest_campaign,
    load_state,
    new_campaign_id,
    save_state,
    state_path,
)
from core.campaign.tempdirs import work_root
from core.errors import CampaignError
from core.state_root import ensure_writable

DELIVERED_PREFIX = "proctor/delivered"


def run_campaign(
    repo: Path | str,
    *,
    baseline: str | None = None,
    candidates: str | Sequence[str] | None = None,
    generator: str | None = None,
    iterations: int | None = None,
    parallel: int | None = None,
    sandbox: str | None = None,
    resume: bool = False,
    deliver: bool = False,
    campaign_id: str | None = None,
    iteration_evaluator: IterationEvaluator | str | None = None,
    iteration_evaluator_failure_policy: str | None = None,
    progress: ProgressCallback | None = None,
    prompt_file: str | None = None,
    task: str | None = None,
    rewrites: int | None = None,
    queue: str | None = None,
    queue_repo: str | None = None,
) -> CampaignResult:
    """Run (or, with `resume`, continue) a campaign over `repo` and return its result.

    Unset arguments come from the baseline commit's config (`[campaign]`), or on resume from the checkpoint.
    `baseline` defaults to HEAD; `parallel` 0 means the number of CPUs. Raises ProctorError for anything that
    stops the campaign from starting (exit 2 in the CLI); candidates' own failures are records, not errors.
    `prompt_file` (with `iterations`, `rewrites` per iteration and an optional `task`) selects the prompt source
    (core/campaign/prompt_source/). `queue` (redis://… or sqlite:///…) sends the measurements to
    `proctor worker`s, which read the commits from `queue_repo` (a git URL or shared path; default `repo`).
    """
    root = workspace_root(Path(repo))
    ensure_writable(root)  # a read-only checkout: say where state goes before anything runs
    cid, stored = _open(root, campaign_id, resume=resume)
    args = CampaignArgs(
        baseline=baseline,
        candidates=candidates,
        generator=generator,
        iterations=iterations,
        parallel=parallel,
        sandbox=sandbox,
        iteration_evaluator=iteration_evaluator,
        policy=iteration_evaluator_failure_policy,
        prompt=PromptArgs(prompt_file, task, rewrites),
    )
    with work_root(cid) as scratch:
        setup, state = prepare(root, cid, scratch, stored, args)
        if queue:
            setup = with_queue(setup, queue, queue_repo)
        state = Scheduler(setup, state, progress).run()
    result = build_result(state, root)
    if deliver and result.winner is not None and result.winner.commit is not None:
        branch = _deliver(root, cid, result.winner.commit)
        state = replace(state, delivered_branch=branch)
        result = replace(result, delivered_branch=branch)
    finished = datetime.now(UTC).isoformat()
    state = replace(state, complete=True, finished_at=finished)
    result = replace(result, finished_at=finished)
    save_state(root, state)
    write_outputs(result)
    return result


def _open(root: Path, campaign_id: str | None, *, resume: bool) -> tuple[str, CampaignState | None]:
    """The campaign's id and, on resume, its checkpoint; a new campaign never reuses an existing id."""
    if resume:
        cid = check_campaign_id(campaign_id) if campaign_id else latest_campaign(root)
        return cid, load_state(root, cid)
    cid = check_campaign_id(campaign_id or new_campaign_id())
    if state_path(root, cid).exists():
        raise CampaignError(
            f"campaign {cid!r} already exists in {campaign_dir(root, cid)}: continue it with --resume, "
            "or choose another --campaign-id",
            path=state_path(root, cid),
        )
    return cid, None


def _deliver(root: Path, cid: str, commit: str) -> str:
    """Point `proctor/delivered/<id>` at the winner; the branch's name."""
    from core.integrity.git import run_git

    branch = f"{DELIVERED_PREFIX}/{cid}"
    run_git(root, "update-ref", f"refs/heads/{branch}", commit)
    return branch


# ------------------------------------------------------------------------------------------------ results


def build_result(state: CampaignState, repo: Path) -> CampaignResult:
    """The scoreboard, derived from the checkpoint alone (so a resumed campaign gives the same one)."""
    baseline = state.baseline
    if baseline is None:
        raise CampaignError(f"campaign {state.campaign_id!r} has no baseline measurement yet: resume it")
    metric = state.metric_name or baseline.metric_name or _first_metric(state.records) or "score"
    direction: Direction = "minimize" if state.direction == "minimize" else "maximize"
    baseline = _check_metric(baseline, metric)
    records = [_check_metric(r, metric) for r in state.records]
    base_score = baseline.score if baseline.status == "scored" else None
    rows = compare_rows(baseline, records)
    pick = pick_winner(base_score, rows, direction, state.noise)
    notes = list(state.notes)
    if state.evaluator.version == 0:
        notes.append(
            "the suite is not registered (version 0): `proctor registry register` gives it a version"
        )
    if baseline.status != "scored":
        notes.append(
            f"the baseline was {baseline.status}: {baseline.reason}; no deltas, any scored candidate wins"
        )
    return CampaignResult(
        campaign_id=state.campaign_id,
        repo=repo,
        evaluator=state.evaluator,
        metric_name=metric,
        direction=direction,
        baseline=baseline,
        rows=rows,
        winner=pick.winner,
        delivered_branch=state.delivered_branch,
        campaign_dir=campaign_dir(repo, state.campaign_id),
        sandbox=state.sandbox,
        goal=state.goal,
        notes=tuple(notes),
        noise=state.noise,
        within_noise=pick.within_noise,
        started_at=state.created_at,
        finished_at=state.finished_at,
        proctor_version=state.proctor_version,
        interpreter=_describe_interpreter(state.interpreter),
        interpreter_info=dict(state.interpreter),
    )


def _describe_interpreter(info: Mapping[str, Any]) -> str:
    if not info:
        return ""
    identity = str(info.get("environment_id", ""))[:12]
    return f"{info.get('path')} (Python {info.get('version')}, {info.get('source')}; environment {identity})"


def _first_metric(records: Sequence[CandidateRecord]) -> str | None:
    return next((r.metric_name for r in sorted(records, key=lambda r: r.index) if r.metric_name), None)


def _check_metric(record: CandidateRecord, metric: str) -> CandidateRecord:
    """A score under another metric name is not comparable: such a run counts as failed."""
    if (
        record.status != "scored"
        or record.metric_name is None
        or record.metric_name.lower() == metric.lower()
    ):
        return record
    return replace(
        record,
        status="failed",
        score=None,
        reason=f"printed metric {record.metric_name!r}, but the campaign measures {metric!r}",
    )


def write_outputs(result: CampaignResult) -> None:
    """scoreboard.json (schema 1) and the self-contained report.html, each replaced atomically."""
    from core.campaign.report.render import render_html

    atomic_write_json(result.scoreboard_path, result.to_json())
    atomic_write_text(result.report_path, render_html(result))


def load_result(repo: Path | str, campaign_id: str | None = None) -> CampaignResult:
    """The result of a finished (or partly run) campaign from its checkpoint, without measuring anything."""
    root = workspace_root(Path(repo))
    cid = check_campaign_id(campaign_id) if campaign_id else latest_campaign(root)
    return build_result(load_state(root, cid), root)
