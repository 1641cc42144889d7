"""The pull-request job (SPEC §10): one check run `Proctor` on the head, the base as the reference.

Order matters for the guarantees: the check run's id is stored as soon as it exists (a restarted job reuses
it), the outcome is stored before it is posted (a restart re-posts it rather than measuring again), and the
work key (repo, PR, head, base, accepted suites) is completed only once. Measuring goes through
`core.campaign.single`, the campaign's own per-candidate path.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from core.campaign.model import CandidateRecord
from core.errors import ProctorError
from core.treewalk import remove_tree
from github_app import hygiene, outcome, text
from github_app.fetch import fetch_commits, mirror_dir
from github_app.port import PullRequestRef
from github_app.queue import RETRY_DELAYS_S
from github_app.store import CheckRun

if TYPE_CHECKING:
    from core.campaign.single import Baseline
    from core.config import GithubConfig
    from core.diagnostics import Diagnostic
    from core.registry import EvaluatorRef
    from github_app.router import JobContext

log = logging.getLogger("proctor.app.pr")


@dataclass(frozen=True)
class Posted:
    """What goes to GitHub for one finished check run (stored as JSON before it is posted)."""

    conclusion: str
    title: str
    summary: str
    annotations: tuple[dict[str, Any], ...] = ()
    comment: str = ""
    comment_mode: str = "update"

    def to_json(self) -> str:
        return json.dumps(self.__dict__ | {"annotations": list(self.annotations)})

    @classmethod
    def from_json(cls, raw: str) -> Posted:
        data = json.loads(raw)
        data["annotations"] = tuple(data.get("annotations", ()))
        return cls(**data)


def work_key(pr: PullRequestRef, accepted: dict[str, int]) -> str:
    suites = ",".join(f"{k}:{v}" for k, v in sorted(accepted.items()))
    return f"{pr.repo.lower()}#{pr.number}@{pr.head_sha}..{pr.base_sha}[{suites}]"


def score_pull_request(pr: PullRequestRef, ctx: JobContext, *, rerun: bool = False) -> None:
    """Create (or resume) the PR's check run and take it to `completed`."""
    store = ctx.store
    key = work_key(pr, store.accepted_suites(pr.repo, pr.number))
    if rerun:
        store.forget_work(key)
    existing = store.check_run(key)
    if existing is not None and existing.status == "completed":
        log.info("%s already scored: nothing to do", key)
        return
    check_id = _check_run_id(pr, ctx, key, existing)
    _cancel_older(pr, ctx, key)
    if existing is not None and existing.result:
        _post(pr, ctx, key, check_id, Posted.from_json(existing.result))
        return
    try:
        posted = _superseded(pr, ctx) or _measure(pr, ctx, key, check_id)
    except Exception as exc:  # git or GitHub down, or a bug: retried, and the last attempt says so
        if ctx.attempt <= len(RETRY_DELAYS_S):
            raise
        reason = hygiene.plain(f"{type(exc).__name__}: {exc}", 200)
        posted = Posted("neutral", text.TITLE_NOT_MEASURED.format(reason=reason), text.SUMMARY_NOT_MEASURED)
    store.save_check_run(key, pr.repo, pr.number, pr.head_sha, pr.base_sha, result=posted.to_json())
    _post(pr, ctx, key, check_id, _superseded(pr, ctx) or posted)


def _details_url(ctx: JobContext, pr: PullRequestRef) -> str:
    return f"{ctx.public_url}/?{urlencode({'repo': pr.repo, 'pr': pr.number})}" if ctx.public_url else ""


def find_or_create_check_run(
    pr: PullRequestRef, ctx: JobContext, *, name: str, status: str, details_url: str, kind: str
) -> int:
    """The job's check run on the PR head: a re-run of a job killed between creating it and recording it
    finds that one again (by its external id) instead of opening a second."""
    external_id = f"proctor-{kind}-{ctx.job_id}"
    found = (
        ctx.gh.find_check_run(pr.repo, pr.head_sha, name=name, external_id=external_id)
        if ctx.attempt > 1
        else None
    )
    return found or ctx.gh.create_check_run(
        pr.repo, pr.head_sha, name=name, status=status, external_id=external_id, details_url=details_url
    )


def _check_run_id(pr: PullRequestRef, ctx: JobContext, key: str, existing: CheckRun | None) -> int:
    if existing is not None and existing.check_run_id is not None:
        return existing.check_run_id
    ctx.store.save_check_run(key, pr.repo, pr.number, pr.head_sha, pr.base_sha, status="queued")
    check_id = find_or_create_check_run(
        pr, ctx, name=text.CHECK_NAME, status="queued", details_url=_details_url(ctx, pr), kind="job"
    )
    ctx.store.save_check_run(key, pr.repo, pr.number, pr.head_sha, pr.base_sha, check_run_id=check_id)
    return check_id


def _cancel_older(pr: PullRequestRef, ctx: JobContext, key: str) -> None:
    """Older heads' check runs that never completed (superseded, or left by a dead job) end `cancelled`."""
    for run in ctx.store.open_check_runs(pr.repo, pr.number):
        if run.work_key == key or run.head_sha == pr.head_sha or run.check_run_id is None:
            continue
        ctx.gh.update_check_run(
            pr.repo,
            run.check_run_id,
            status="completed",
            conclusion="cancelled",
            title=text.TITLE_SUPERSEDED.format(sha=pr.head_sha[:7]),
            summary=text.SUMMARY_SUPERSEDED,
        )
        ctx.store.save_check_run(
            run.work_key, pr.repo, pr.number, run.head_sha, "", status="completed", conclusion="cancelled"
        )


def _superseded(pr: PullRequestRef, ctx: JobContext) -> Posted | None:
    newer = ctx.store.newer_head(pr.repo, pr.number, ctx.job_id, pr.head_sha)
    if newer is None:
        return None
    return Posted(
        "cancelled", text.TITLE_SUPERSEDED.format(sha=newer[:7]), text.SUMMARY_SUPERSEDED, comment_mode="off"
    )


def fetch_pull_request(pr: PullRequestRef, ctx: JobContext) -> Path:
    """The app's mirror of the repository, holding the PR's base and head commits (a fork's too)."""
    return fetch_commits(
        ctx.data_dir,
        pr.repo,
        pr.clone_url,
        ctx.gh.token(),
        [pr.base_sha, pr.head_sha],
        pull=pr.number,
        head_url=pr.head_clone_url,
    )


def _measure(pr: PullRequestRef, ctx: JobContext, key: str, check_id: int) -> Posted:
    from core.campaign.single import prepare_baseline

    mirror = fetch_pull_request(pr, ctx)
    work_root = ctx.data_dir / "work" / f"job-{ctx.job_id}"
    remove_tree(work_root)
    work_root.mkdir(parents=True)
    try:
        try:
            base = prepare_baseline(mirror, pr.base_sha, work_root, ref="base")
        except ProctorError as exc:
            reason = hygiene.plain(str(exc), 200)
            return Posted(
                "neutral", text.TITLE_BASE_UNUSABLE.format(reason=reason), hygiene.inline(str(exc), 4000)
            )
        waiting = _fork_gate(pr, ctx, base)
        if waiting is not None:
            return waiting
        ctx.gh.update_check_run(
            pr.repo, check_id, status="in_progress", title=text.TITLE_RUNNING, summary=text.TITLE_RUNNING
        )
        measured = _measure_pair(pr, ctx, mirror, base, work_root)
        pointer = _keep_report(pr, ctx, measured, base.config.github)
        result = outcome.render(measured, base.config.github, pointer)
        comment = outcome.comment_body(measured, result.title, result.conclusion, pointer)
        return Posted(
            result.conclusion,
            result.title,
            result.summary,
            tuple(dict(a) for a in result.annotations),
            comment,
            base.config.github.comment,
        )
    finally:
        remove_tree(work_root)


def _keep_report(
    pr: PullRequestRef, ctx: JobContext, measured: outcome.Measured, config: GithubConfig
) -> str:
    """Write the uncut report into the data dir; what a cut text says about where the rest is."""
    from core.atomic import atomic_write_text

    conclusion, title = outcome.decide(measured, config)
    folder = mirror_dir(Path(), pr.repo).name.removesuffix(".git")
    relative = Path("reports") / folder / f"pr-{pr.number}-{pr.head_sha[:12]}.md"
    atomic_write_text(ctx.data_dir / relative, outcome.full_report(measured, title, conclusion))
    if ctx.public_url:
        return f"the full report is at {_details_url(ctx, pr)}"
    return f"the full report is {relative.as_posix()} in the Proctor app's data directory"


def _fork_gate(pr: PullRequestRef, ctx: JobContext, base: Baseline) -> Posted | None:
    """A fork's code runs only with a maintainer's `/proctor run` for this head (github.fork_prs)."""
    policy = base.config.github.fork_prs
    if not pr.is_fork or policy == "always":
        return None
    if policy == "never":
        return Posted("neutral", text.TITLE_FORK_NEVER, text.TITLE_FORK_NEVER, comment_mode="off")
    if ctx.store.approved(pr.repo, pr.number, pr.head_sha):
        return None
    return Posted("action_required", text.TITLE_FORK_WAITING, text.SUMMARY_FORK_WAITING, comment_mode="off")


def _measure_pair(
    pr: PullRequestRef, ctx: JobContext, mirror: Path, base: Baseline, work_root: Path
) -> outcome.Measured:
    from core.campaign.single import delta_of, measure_commit, prepare_baseline
    from github_app import registry

    base_record = _base_record(pr, ctx, base)
    head_suite = registry.suite_id(mirror, pr.head_sha, base.config.evaluation_dir)
    accepted = ctx.store.accepted_suites(pr.repo, pr.number)
    trusted = base
    if head_suite is not None and head_suite in accepted and head_suite != base.evaluator_id:
        trusted = prepare_baseline(mirror, pr.head_sha, work_root, ref="head")
    head_record = measure_commit(trusted, pr.head_sha, index=1, ref=f"pull/{pr.number}/head")
    delta, stderr = delta_of(base_record, head_record) if trusted is base else (None, None)
    evaluator: EvaluatorRef = registry.evaluator_ref(ctx.data_dir, pr.repo, trusted.evaluator_id)
    return outcome.Measured(
        base=base_record,
        head=head_record,
        metric=base.metric_name or head_record.metric_name or base_record.metric_name or "",
        direction=base.direction,
        evaluator=evaluator,
        base_evaluator=registry.evaluator_ref(ctx.data_dir, pr.repo, base.evaluator_id),
        sandbox=base.sandbox.describe(),
        isolated=base.sandbox.level == "namespace",
        diagnostics=tuple(_lint_changed(mirror, pr, base, work_root)),
        delta=delta,
        stderr=stderr,
    )


def _base_record(pr: PullRequestRef, ctx: JobContext, base: Baseline) -> CandidateRecord:
    """The base measured once per (base commit, evaluator id): later PRs on the same base reuse it."""
    from core.campaign.single import measure_commit

    cached = ctx.store.base_score(pr.repo, pr.base_sha, base.evaluator_id)
    if cached is not None:
        return CandidateRecord.from_json(cached)
    record = measure_commit(base, pr.base_sha, index=0, ref="base")
    if record.status == "scored":  # a failure may be the machine's (a timeout under load): measure again
        ctx.store.save_base_score(pr.repo, pr.base_sha, base.evaluator_id, record.to_json())
    return record


def _lint_changed(mirror: Path, pr: PullRequestRef, base: Baseline, work_root: Path) -> list[Diagnostic]:
    """Static rules (the base's config) on the evaluator, suite, brief and config files the PR changed."""
    from core.check import check_paths
    from core.integrity.git import diff_tree, run_git
    from core.integrity.materialize import materialize
    from core.lint import classify

    try:
        merge_base = run_git(mirror, "merge-base", pr.base_sha, pr.head_sha).strip()
        changed = [c.path for c in diff_tree(mirror, merge_base, pr.head_sha) if c.status != "D"]
        wanted = [p for p in changed if classify(p, base.config) is not None]
        if not wanted:
            return []
        tree = work_root / "lint"
        materialize(mirror, pr.head_sha, tree)
        files = [tree / p for p in wanted if (tree / p).is_file() and not (tree / p).is_symlink()]
        return list(check_paths(files, workspace=tree, config=base.config).diagnostics)
    except ProctorError as exc:
        log.warning("static rules skipped for %s#%s: %s", pr.repo, pr.number, exc)
        return []


def _post(pr: PullRequestRef, ctx: JobContext, key: str, check_id: int, posted: Posted) -> None:
    """Annotations in batches of 50 (each PATCH appends), the last PATCH completes; then the comment."""
    batches = outcome.batches(posted.annotations)
    for batch in batches[:-1]:
        ctx.gh.update_check_run(
            pr.repo, check_id, title=posted.title, summary=posted.summary, annotations=batch
        )
    ctx.gh.update_check_run(
        pr.repo,
        check_id,
        status="completed",
        conclusion=posted.conclusion,
        title=posted.title,
        summary=posted.summary,
        annotations=batches[-1],
    )
    if posted.comment and posted.comment_mode != "off":
        upsert_comment(pr, ctx, posted.comment, new=posted.comment_mode == "new")
    ctx.store.save_check_run(
        key, pr.repo, pr.number, pr.head_sha, pr.base_sha, status="completed", conclusion=posted.conclusion
    )


def upsert_comment(pr: PullRequestRef, ctx: JobContext, body: str, *, new: bool = False) -> None:
    """One comment per PR (the PR check's section of it), updated in place (github_app/comment.py)."""
    from github_app.comment import upsert_section

    upsert_section(pr, ctx, "pr", body, new=new)
