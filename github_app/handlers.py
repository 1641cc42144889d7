"""Event handlers, each small, on one router (SPEC §10): pull requests, and `/proctor` comment commands."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from core.integrity.git import is_object_id
from github_app import commands, text
from github_app.port import PullRequestRef
from github_app.pr_job import score_pull_request
from github_app.router import Router
from github_app.webhook import Event

if TYPE_CHECKING:
    from github_app.router import JobContext

router = Router()
log = logging.getLogger("proctor.app.handlers")
PR_ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review")


def command_of(event: Event) -> str | None:
    """`run` for a comment whose first line is `/proctor run ...`; None when the comment is no command."""
    comment = event.payload.get("comment")
    body = comment.get("body") if isinstance(comment, dict) else None
    parsed = commands.parse(body) if isinstance(body, str) else None
    return parsed[0] if parsed is not None else None


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
    """A `/proctor ...` comment on a PR (edited comments are not commands: only `created` is routed)."""
    comment = event.payload["comment"]
    command, args = commands.parse(str(comment.get("body", ""))) or ("", ())
    comment_id = comment.get("id")
    commands.execute(
        commands.Invocation(
            command=command,
            args=args,
            repo=str(event.payload["repository"]["full_name"]),
            number=int(event.payload["issue"]["number"]),
            login=str((comment.get("user") or {}).get("login", "")),
            delivery_id=event.delivery_id,
            association=str(comment.get("author_association", "")),
            comment_id=comment_id if isinstance(comment_id, int) else None,
        ),
        ctx,
    )


_CHECK_COMMANDS = {text.CHECK_NAME: "run", text.CAMPAIGN_CHECK_NAME: "campaign"}


def _rerequested_pulls(event: Event) -> list[int]:
    """PR numbers of a re-requested Proctor check run, or of a re-requested check suite."""
    item = event.payload.get("check_run") or event.payload.get("check_suite")
    repository = event.payload.get("repository")
    if not isinstance(item, dict) or not isinstance(repository, dict) or "full_name" not in repository:
        return []
    if event.name == "check_run" and item.get("name") not in _CHECK_COMMANDS:
        return []
    pulls = item.get("pull_requests")
    numbers = [p.get("number") for p in pulls if isinstance(p, dict)] if isinstance(pulls, list) else []
    return [n for n in numbers if isinstance(n, int) and not isinstance(n, bool)]


def _button_command(event: Event) -> str | None:
    """The command a pressed check-run button stands for ("Re-run", "Deliver"), None for others' buttons."""
    action = event.payload.get("requested_action")
    identifier = action.get("identifier") if isinstance(action, dict) else None
    return text.ACTION_COMMANDS.get(identifier) if isinstance(identifier, str) else None


def _run_for_pulls(event: Event, ctx: JobContext, command: str) -> None:
    repo = str(event.payload["repository"]["full_name"])
    login = str((event.payload.get("sender") or {}).get("login", ""))
    for number in _rerequested_pulls(event):
        commands.execute(commands.Invocation(command, (), repo, number, login, event.delivery_id), ctx)


@router.register("check_run", action="rerequested", when=lambda e: bool(_rerequested_pulls(e)))
@router.register("check_suite", action="rerequested", when=lambda e: bool(_rerequested_pulls(e)))
def on_rerequested(event: Event, ctx: JobContext) -> None:
    """ "Re-run" in GitHub's checks tab is `/proctor run` (or, on the campaign's check, `/proctor campaign`):
    only people with write access see the button."""
    item = event.payload.get("check_run") or {}
    _run_for_pulls(event, ctx, _CHECK_COMMANDS.get(str(item.get("name", "")), "run"))


@router.register(
    "check_run",
    action="requested_action",
    when=lambda e: _button_command(e) is not None and bool(_rerequested_pulls(e)),
)
def on_button(event: Event, ctx: JobContext) -> None:
    """A button under a Proctor check run: the same job as its command."""
    _run_for_pulls(event, ctx, _button_command(event) or "")
