"""`/proctor campaign` on a pull request (SPEC §10 "Campaign on a PR"), and delivering its winner.

Candidates come from the **base** commit's `[campaign]` config (a refs glob over the repository's branches,
or the generator run N times with the PR head as parent); the PR head is the baseline. Measuring is
`core.campaign.run_campaign`, the function `proctor campaign` calls: one engine. A PR head whose config or
evaluation suite differs from the base's (and was not accepted) runs no campaign, since the engine reads its
config from the baseline.

Resumable (SPEC §5.4): the campaign id and its `Proctor campaign` check run are stored before anything is
measured, so a job re-run after a kill -9 reuses the check run and continues the campaign from its checkpoint;
finished candidates are not measured again. The result is stored before it is posted, and the delivery is
idempotent (github_app/delivery.py), so a re-run posts and delivers nothing twice.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.campaign.verdict import beats_baseline
from core.errors import CampaignError, GitError, ProctorError
from core.treewalk import remove_tree
from github_app import campaign_render, hygiene, text
from github_app.comment import upsert_section
from github_app.delivery import Delivered, DeliveryRequest, deliver
from github_app.fetch import fetch_branches, mirror_dir
from github_app.pr_job import fetch_pull_request, find_or_create_check_run
from github_app.queue import RETRY_DELAYS_S
from github_app.store import Campaign

if TYPE_CHECKING:
    from core.campaign import CampaignResult, ProgressEvent
    from core.campaign.model import ScoredRow
    from github_app.port import PullRequestRef
    from github_app.router import JobContext

log = logging.getLogger("proctor.app.campaign")
DELIVERY_BRANCH = "proctor/delivered/pr-{number}"
PROGRESS_INTERVAL_S = 3.0  # GitHub is told about progress at most this often
MAX_ITERATIONS = 100


@dataclass(frozen=True)
class CampaignDone:
    """What the command replies with: did it run, and one line about it."""

    ran: bool
    line: str


def run_pr_campaign(pr: PullRequestRef, ctx: JobContext, iterations: int | None = None) -> CampaignDone:
    """Run (or resume, after a crash) this job's campaign on `pr`, post it, and deliver its winner."""
    campaign = _campaign_row(pr, ctx)
    check_id = _check_run(pr, ctx, campaign)
    if campaign.status == "running":
        try:
            result = _measure(pr, ctx, campaign.campaign_id, check_id, iterations)
        except ProctorError as exc:
            if isinstance(exc, GitError) and ctx.attempt <= len(RETRY_DELAYS_S):
                raise  # git or the network, not the campaign: the job is tried again later
            reason = str(exc)
            ctx.store.save_campaign(campaign.campaign_id, status="refused", result=reason)
            _post_refusal(pr, ctx, check_id, reason)
            return CampaignDone(False, text.REPLY_CAMPAIGN_REFUSED.format(reason=hygiene.inline(reason)))
        _store_result(ctx, campaign.campaign_id, result)
    elif campaign.status == "refused":
        _post_refusal(pr, ctx, check_id, campaign.result)
        return CampaignDone(False, text.REPLY_CAMPAIGN_REFUSED.format(reason=hygiene.inline(campaign.result)))
    else:
        result = _load(pr, ctx, campaign.campaign_id)
    _delivered, line = deliver_winner(pr, ctx, result)
    _post_result(pr, ctx, check_id, result, line)
    return CampaignDone(True, line)


def deliver_last(repo: str, number: int, ctx: JobContext) -> CampaignDone:
    """`/proctor deliver`: the winner of the PR's last finished campaign, delivered (idempotently)."""
    last = next((c for c in ctx.store.campaigns(repo, number) if c.status == "completed"), None)
    if last is None:
        reason = "no campaign has finished on this pull request"
        return CampaignDone(False, text.REPLY_NOTHING_TO_DELIVER.format(reason=reason))
    pr = ctx.gh.get_pull(repo, number)
    result = _load(pr, ctx, last.campaign_id)
    delivered, line = deliver_winner(pr, ctx, result)
    if last.check_run_id is not None:
        _post_result(pr, ctx, last.check_run_id, result, line)
    return CampaignDone(delivered is not None and delivered.delivered, line)


# ------------------------------------------------------------------------------------------ bookkeeping


def _campaign_row(pr: PullRequestRef, ctx: JobContext) -> Campaign:
    found = ctx.store.campaign_of_job(ctx.job_id)
    if found is not None:
        return found
    cid = f"pr{pr.number}-job{ctx.job_id}"
    ctx.store.save_campaign(
        cid, repo=pr.repo, pr_number=pr.number, job_id=ctx.job_id, head_sha=pr.head_sha, status="running"
    )
    made = ctx.store.campaign(cid)
    assert made is not None
    return made


def details_url(ctx: JobContext, campaign_id: str) -> str:
    return f"{ctx.public_url}/campaigns/{campaign_id}" if ctx.public_url else ""


def _check_run(pr: PullRequestRef, ctx: JobContext, campaign: Campaign) -> int:
    """The campaign's check run: stored as soon as it exists; a re-run after a crash finds it again."""
    if campaign.check_run_id is not None:
        return campaign.check_run_id
    check_id = find_or_create_check_run(
        pr,
        ctx,
        name=text.CAMPAIGN_CHECK_NAME,
        status="in_progress",
        details_url=details_url(ctx, campaign.campaign_id),
        kind="campaign",
    )
    ctx.store.save_campaign(campaign.campaign_id, check_run_id=check_id)
    return check_id


def _store_result(ctx: JobContext, campaign_id: str, result: CampaignResult) -> None:
    winner = result.winner.commit if result.winner is not None and result.winner.commit else ""
    ctx.store.save_campaign(
        campaign_id,
        status="completed",
        result=json.dumps(result.to_json()),
        report_path=str(result.report_path),
        winner_commit=winner,
    )


def _load(pr: PullRequestRef, ctx: JobContext, campaign_id: str) -> CampaignResult:
    from core.campaign import load_result

    return load_result(mirror_dir(ctx.data_dir, pr.repo), campaign_id)


# ------------------------------------------------------------------------------------------ measuring


class _Progress:
    """The engine's progress callback: the check run's summary, at most every PROGRESS_INTERVAL_S."""

    def __init__(self, pr: PullRequestRef, ctx: JobContext, check_id: int) -> None:
        self.pr, self.ctx, self.check_id = pr, ctx, check_id
        self.last = 0.0

    def __call__(self, event: ProgressEvent) -> None:
        now = time.monotonic()
        if event.kind == "generating" or now - self.last < PROGRESS_INTERVAL_S:
            return
        self.last = now
        title = text.CAMPAIGN_RUNNING_TITLE.format(done=event.done, total=event.total)
        try:
            self.ctx.gh.update_check_run(
                self.pr.repo,
                self.check_id,
                status="in_progress",
                title=title,
                summary=campaign_render.progress_summary(event),
            )
        except Exception:  # progress is a courtesy: GitHub being down must not stop the campaign
            log.warning("campaign progress for %s#%s not posted", self.pr.repo, self.pr.number, exc_info=True)


def _measure(
    pr: PullRequestRef, ctx: JobContext, campaign_id: str, check_id: int, iterations: int | None
) -> CampaignResult:
    from core.campaign import run_campaign
    from core.campaign.state import state_path

    mirror = fetch_pull_request(pr, ctx)
    fetch_branches(mirror, pr.clone_url, ctx.gh.token())
    progress = _Progress(pr, ctx, check_id)
    # With the App's Redis queue, `proctor worker`s measure; they read the commits from the mirror.
    queue = ctx.campaign_queue or None
    if state_path(mirror, campaign_id).exists():
        return run_campaign(mirror, resume=True, campaign_id=campaign_id, progress=progress, queue=queue)
    source = _source(pr, ctx, mirror, iterations)
    return run_campaign(
        mirror, baseline=pr.head_sha, campaign_id=campaign_id, progress=progress, queue=queue, **source
    )


def _source(pr: PullRequestRef, ctx: JobContext, mirror: Path, iterations: int | None) -> dict[str, Any]:
    """The candidate source from the base commit's config; CampaignError when no campaign may run."""
    from core.campaign.single import prepare_baseline

    if pr.is_fork:
        raise CampaignError(
            "this pull request comes from a fork, and Proctor cannot deliver into a fork's branch"
        )
    work = ctx.data_dir / "work" / f"campaign-{ctx.job_id}"
    remove_tree(work)
    try:
        base = prepare_baseline(mirror, pr.base_sha, work, ref="base")
        head = prepare_baseline(mirror, pr.head_sha, work, ref="head")
    finally:
        remove_tree(work)
    if head.config != base.config:
        raise CampaignError(
            "this pull request changes proctor.toml, and a campaign runs only under the base branch's "
            "configuration; merge or revert that change first"
        )
    accepted = ctx.store.accepted_suites(pr.repo, pr.number)
    if head.evaluator_id != base.evaluator_id and head.evaluator_id not in accepted:
        raise CampaignError(
            "this pull request changes the evaluation suite (see the Proctor check); a maintainer's "
            "`/proctor accept-evaluator` accepts it"
        )
    campaign = base.config.campaign
    if campaign.generator:
        count = iterations or campaign.iterations
        if count <= 0:
            raise CampaignError(
                "[campaign] generator is set but iterations is 0; comment `/proctor campaign N` to make N"
            )
        return {"generator": campaign.generator, "iterations": min(count, MAX_ITERATIONS)}
    refs = candidate_refs(mirror, campaign.candidates, pr.head_sha)
    return {"candidates": refs[:iterations] if iterations else refs}


def candidate_refs(mirror: Path, spec: str | list[str], head_sha: str) -> list[str]:
    """Branches the base's `[campaign] candidates` names, without the PR head itself and Proctor's own."""
    from core.campaign import candidates as sources

    resolved = sources.resolve_candidates(mirror, sources.normalize_spec(spec))
    refs = [r.ref for r in resolved if not r.ref.startswith(("refs/", "proctor/")) and r.commit != head_sha]
    if not refs:
        raise CampaignError(
            f"no branch other than this pull request's matches [campaign] candidates {spec!r}"
        )
    return refs


# ------------------------------------------------------------------------------------------ delivering


def winning_row(result: CampaignResult) -> ScoredRow | None:
    """The winner's row, when it beats the PR head beyond noise (core.campaign.verdict): else nothing."""
    if result.winner is None or result.winner.commit is None:
        return None
    for row in result.rows:
        if row.record.index == result.winner.index:
            return row if beats_baseline(row.delta, row.stderr, result.direction, result.noise) else None
    return None


def deliver_winner(
    pr: PullRequestRef, ctx: JobContext, result: CampaignResult
) -> tuple[Delivered | None, str]:
    """Deliver the winner as `proctor/delivered/pr-<n>` into the PR's branch; (what happened, one line)."""
    row = winning_row(result)
    if row is None:
        return None, f"Nothing delivered: {hygiene.inline(campaign_render.no_winner(result))}."
    if not pr.head_ref:
        return None, "Nothing delivered: the pull request's branch name is unknown."
    mirror = mirror_dir(ctx.data_dir, pr.repo)
    commit = on_head(mirror, row.record.commit or "", pr.head_sha)
    request = DeliveryRequest(
        repo=pr.repo,
        remote_url=pr.clone_url,
        git_dir=mirror,
        commit=commit,
        branch=DELIVERY_BRANCH.format(number=pr.number),
        base=pr.head_ref,
        title=campaign_render.delivery_title(result, row, pr.number),
        body=campaign_render.delivery_body(result, row, pr.number, details_url(ctx, result.campaign_id)),
        since=pr.head_sha,
    )
    done = deliver(ctx.gh, ctx.store, request)
    if done.delivered:
        ctx.store.save_campaign(result.campaign_id, winner_commit=commit)
    return done, done.message


def on_head(mirror: Path, winner: str, head: str) -> str:
    """The commit to deliver: the winner itself when it shares history with the PR head; a generated winner
    (made in a fresh copy, so with no common history) becomes its tree committed on the head. Deterministic
    (the winner's dates, Proctor's identity), so the same winner is always the same delivered commit."""
    import subprocess

    from core.integrity.git import git_argv, git_env, run_git

    if run_git(mirror, "merge-base", head, winner, check=False).strip():
        return winner
    when = run_git(mirror, "show", "-s", "--format=%aI", winner).strip()
    env = git_env()
    env.update(
        GIT_AUTHOR_NAME="Proctor",
        GIT_AUTHOR_EMAIL="proctor@proctor.invalid",
        GIT_COMMITTER_NAME="Proctor",
        GIT_COMMITTER_EMAIL="proctor@proctor.invalid",
        GIT_AUTHOR_DATE=when,
        GIT_COMMITTER_DATE=when,
    )
    message = f"Proctor campaign winner {winner[:12]}, on the pull request's head {head[:12]}"
    argv = git_argv(mirror, ("commit-tree", f"{winner}^{{tree}}", "-p", head, "-m", message))
    made = subprocess.run(argv, env=env, capture_output=True, check=False)
    if made.returncode != 0:
        raise CampaignError(
            f"could not put the winner {winner[:12]} on the PR head: {made.stderr.decode()[-300:]}"
        )
    return made.stdout.decode().strip()


# ------------------------------------------------------------------------------------------ posting


def _post_result(
    pr: PullRequestRef, ctx: JobContext, check_id: int, result: CampaignResult, line: str
) -> None:
    title, conclusion = campaign_render.title(result), campaign_render.conclusion(result)
    link = details_url(ctx, result.campaign_id)
    summary = campaign_render.summary(result, line, link)
    actions = text.CAMPAIGN_ACTIONS if winning_row(result) is not None else text.CAMPAIGN_ACTIONS[:1]
    ctx.gh.update_check_run(
        pr.repo,
        check_id,
        status="completed",
        conclusion=conclusion,
        title=title,
        summary=hygiene.cut(summary, hygiene.SUMMARY_LIMIT, link or "the report is in the data directory"),
        actions=actions,
    )
    upsert_section(pr, ctx, "campaign", campaign_render.section(title, summary))


def _post_refusal(pr: PullRequestRef, ctx: JobContext, check_id: int, reason: str) -> None:
    title = hygiene.plain(text.CAMPAIGN_REFUSED_TITLE.format(reason=reason))
    ctx.gh.update_check_run(
        pr.repo,
        check_id,
        status="completed",
        conclusion="neutral",
        title=title,
        summary=hygiene.inline(reason, 4000),
        actions=text.CAMPAIGN_ACTIONS[:1],
    )
    upsert_section(pr, ctx, "campaign", campaign_render.section(title, hygiene.inline(reason, 4000)))
