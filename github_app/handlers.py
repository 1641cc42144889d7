"""Event handlers, each small, on one router (SPEC §10): pull requests, and `/proctor` comment commands."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from core.errors import ProctorError
from core.integrity.git import is_object_id
from core.treewalk import remove_tree
from github_app import hygiene, text
from github_app.port import PullRequestRef
from github_app.pr_job import fetch_pull_request, score_pull_request
from github_app.router import Router
from github_app.webhook import Event

if TYPE_CHECKING:
    from github_app.jobs import JobContext

router = Router()
log = logging.getLogger("proctor.app.handlers")
PR_ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review")


def command_of(event: Event) -> str | None:
    """`run` for a comment whose first line is `/proctor run ...`; None when the comment is no command."""
    comment = event.payload.get("comment")
    body = comment.get("body") if isinstance(comment, dict) else None
    if not isinstance(body, str):
        return None
    words = body.strip().split("\n", 1)[0].split()
    if len(words) < 1 or words[0] != "/proctor":
        return None
    return words[1] if len(words) > 1 else ""


def _reply(event: Event, ctx: JobContext, repo: str, number: int, body: str) -> None:
    """Answer a command once: the hidden marker names the delivery, so a job re-run after a crash between
    posting and recording finds its earlier reply instead of posting a second one."""
    marker = text.REPLY_MARKER.format(delivery=event.delivery_id)
    if ctx.attempt > 1 and ctx.gh.find_comment(repo, number, marker) is not None:
        return
    ctx.gh.create_comment(repo, number, f"{marker}\n{body}")


def _is_pr_command(event: Event) -> bool:
    issue = event.payload.get("issue")
    return (
        isinstance(issue, dict)
        and isinstance(issue.get("pull_request"), dict)
        and command_of(event) is not None
    )


def _pull_request_of(event: Event) -> PullRequestRef | None:
    """The pull request a payload names, or None when the payload lacks what a job needs."""
    try:
        pr = PullRequestRef.from_pull(event.payload["pull_request"], event.payload["repository"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return pr if is_object_id(pr.head_sha) and is_object_id(pr.base_sha) and "/" in pr.repo else None


def _on_pull_request(event: Event, ctx: JobContext) -> None:
    pull, repository = event.payload["pull_request"], event.payload["repository"]
    if pull.get("state", "open") != "open":
        return
    score_pull_request(PullRequestRef.from_pull(pull, repository), ctx)


for _action in PR_ACTIONS:
    router.register("pull_request", action=_action, when=lambda e: _pull_request_of(e) is not None)(
        _on_pull_request
    )


@router.register("issue_comment", action="created", when=_is_pr_command)
def on_command(event: Event, ctx: JobContext) -> None:
    command = command_of(event) or ""
    repo = str(event.payload["repository"]["full_name"])
    number = int(event.payload["issue"]["number"])
    comment = event.payload["comment"]
    shown = hygiene.inline(f"/proctor {command}".strip(), 100)
    if comment.get("author_association") not in text.TRUSTED_ASSOCIATIONS:
        _reply(event, ctx, repo, number, text.REPLY_NOT_ALLOWED.format(command=shown))
        return
    if command not in text.COMMANDS:
        _reply(event, ctx, repo, number, text.REPLY_UNKNOWN.format(command=shown))
        return
    if command in ("campaign", "deliver"):
        _reply(event, ctx, repo, number, text.REPLY_NOT_YET.format(command=shown))
        return
    pr = ctx.gh.get_pull(repo, number)
    login = str((comment.get("user") or {}).get("login", ""))
    if command == "run":
        ctx.store.approve(repo, number, pr.head_sha, login)
    elif not _accept_evaluator(event, pr, ctx, login):
        return
    score_pull_request(pr, ctx, rerun=True)


def _accept_evaluator(event: Event, pr: PullRequestRef, ctx: JobContext, login: str) -> bool:
    """Register the PR head's suite as a new version (provenance `provided`, reason naming the PR)."""
    from core.campaign.single import prepare_baseline
    from core.integrity.materialize import materialize
    from github_app import registry

    mirror = fetch_pull_request(pr, ctx)
    work = ctx.data_dir / "work" / f"accept-{ctx.job_id}"
    remove_tree(work)
    try:
        base = prepare_baseline(mirror, pr.base_sha, work, ref="base")
        head_dir = work / "head"
        materialize(mirror, pr.head_sha, head_dir)
        suite = base.config.evaluation_dir
        reason = f"accepted in pull request #{pr.number} of {pr.repo} by {login or 'a maintainer'}"
        entry = registry.accept(ctx.data_dir, pr.repo, base.directory / suite, head_dir / suite, reason)
    except ProctorError as exc:
        _reply(
            event,
            ctx,
            pr.repo,
            pr.number,
            f"Could not accept the evaluation suite: {hygiene.inline(str(exc))}",
        )
        return False
    finally:
        remove_tree(work)
    ctx.store.accept_suite(pr.repo, pr.number, entry.evaluator_id, entry.version)
    accepted = text.REPLY_ACCEPTED.format(version=entry.version, evaluator_id=entry.evaluator_id[:12])
    _reply(event, ctx, pr.repo, pr.number, accepted)
    return True


def _rerequested_pulls(event: Event) -> list[int]:
    """PR numbers of a re-requested Proctor check run, or of a re-requested check suite."""
    item = event.payload.get("check_run") or event.payload.get("check_suite")
    repository = event.payload.get("repository")
    if not isinstance(item, dict) or not isinstance(repository, dict) or "full_name" not in repository:
        return []
    if event.name == "check_run" and item.get("name") != text.CHECK_NAME:
        return []
    pulls = item.get("pull_requests")
    numbers = [p.get("number") for p in pulls if isinstance(p, dict)] if isinstance(pulls, list) else []
    return [n for n in numbers if isinstance(n, int) and not isinstance(n, bool)]


@router.register("check_run", action="rerequested", when=lambda e: bool(_rerequested_pulls(e)))
@router.register("check_suite", action="rerequested", when=lambda e: bool(_rerequested_pulls(e)))
def on_rerequested(event: Event, ctx: JobContext) -> None:
    """ "Re-run" in GitHub's checks tab is `/proctor run`: only people with write access see the button."""
    repo = str(event.payload["repository"]["full_name"])
    for number in _rerequested_pulls(event):
        pr = ctx.gh.get_pull(repo, number)
        ctx.store.approve(
            repo, number, pr.head_sha, str((event.payload.get("sender") or {}).get("login", ""))
        )
        score_pull_request(pr, ctx, rerun=True)
