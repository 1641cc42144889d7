"""`/proctor` commands (SPEC §10 "Commands"), from a PR comment or a check-run button, as one table.

Only the repository's owners, members and collaborators may run them; anyone else gets one polite reply and
nothing runs. A command comment gets reactions so people see it was heard: 👀 when its job starts, 🚀 when it
is done, 😕 when it was refused or could not run. Buttons ("Re-run", "Deliver") and "Re-run" in the checks
tab carry no comment: they only run the same command.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import ProctorError
from core.treewalk import remove_tree
from github_app import hygiene, text
from github_app.pr_job import fetch_pull_request, score_pull_request

if TYPE_CHECKING:
    from github_app.router import JobContext

log = logging.getLogger("proctor.app.commands")


@dataclass(frozen=True)
class Invocation:
    """One command to run: who asked, where, and (for a comment) which comment to react to."""

    command: str
    args: tuple[str, ...]
    repo: str
    number: int
    login: str
    delivery_id: str
    association: str = ""  # the comment author's; "" for buttons (only people with write access see them)
    comment_id: int | None = None


def parse(body: str) -> tuple[str, tuple[str, ...]] | None:
    """(`campaign`, (`3`,)) for a comment whose first line is `/proctor campaign 3`; None for no command."""
    words = body.strip().split("\n", 1)[0].split()
    if not words or words[0] != "/proctor":
        return None
    return (words[1], tuple(words[2:])) if len(words) > 1 else ("", ())


def reply(inv: Invocation, ctx: JobContext, body: str) -> None:
    """Answer a command once: the hidden marker names the delivery, so a job re-run after a crash between
    posting and recording finds its earlier reply instead of posting a second one."""
    marker = text.REPLY_MARKER.format(delivery=inv.delivery_id)
    if ctx.attempt > 1 and ctx.gh.find_comment(inv.repo, inv.number, marker) is not None:
        return
    ctx.gh.create_comment(inv.repo, inv.number, f"{marker}\n{body}")


def _react(inv: Invocation, ctx: JobContext, content: str) -> None:
    if inv.comment_id is None:
        return
    try:
        ctx.gh.add_reaction(inv.repo, inv.comment_id, content)
    except Exception:  # a reaction is a courtesy: the command's own work must not fail with it
        log.warning("could not react %s to comment %s", content, inv.comment_id, exc_info=True)


def execute(inv: Invocation, ctx: JobContext) -> None:
    """Check who asked and what, then run the command; reactions say how it went."""
    shown = hygiene.inline(" ".join(("/proctor", inv.command, *inv.args)).strip(), 100)
    if inv.comment_id is not None and inv.association not in text.TRUSTED_ASSOCIATIONS:
        _react(inv, ctx, "confused")
        reply(inv, ctx, text.REPLY_NOT_ALLOWED.format(command=shown))
        return
    run = COMMANDS.get(inv.command)
    if run is None:
        _react(inv, ctx, "confused")
        reply(inv, ctx, text.REPLY_UNKNOWN.format(command=shown))
        return
    _react(inv, ctx, "eyes")
    ok = run(inv, ctx)
    _react(inv, ctx, "rocket" if ok else "confused")


def _run(inv: Invocation, ctx: JobContext) -> bool:
    pr = ctx.gh.get_pull(inv.repo, inv.number)
    ctx.store.approve(pr.repo, pr.number, pr.head_sha, inv.login)
    score_pull_request(pr, ctx, rerun=True)
    return True


def _iterations(inv: Invocation) -> int | None:
    """`/proctor campaign N`: N candidates (generator runs, or the first N branches); None when not given."""
    if not inv.args:
        return None
    raw = inv.args[0]
    return int(raw) if raw.isdigit() and int(raw) > 0 else -1


def _campaign(inv: Invocation, ctx: JobContext) -> bool:
    from github_app.campaign_job import MAX_ITERATIONS, run_pr_campaign

    count = _iterations(inv)
    if count is not None and not 0 < count <= MAX_ITERATIONS:
        reply(inv, ctx, f"`/proctor campaign N` needs N between 1 and {MAX_ITERATIONS}; nothing was run.")
        return False
    done = run_pr_campaign(ctx.gh.get_pull(inv.repo, inv.number), ctx, count)
    if not done.ran:
        reply(inv, ctx, done.line)
    return done.ran


def _deliver(inv: Invocation, ctx: JobContext) -> bool:
    from github_app.campaign_job import deliver_last

    done = deliver_last(inv.repo, inv.number, ctx)
    if not done.ran:
        reply(inv, ctx, done.line)
    return done.ran


def _accept_evaluator(inv: Invocation, ctx: JobContext) -> bool:
    """Register the PR head's suite as a new version (provenance `provided`, reason naming the PR)."""
    from core.campaign.single import prepare_baseline
    from core.integrity.materialize import materialize
    from github_app import registry

    pr = ctx.gh.get_pull(inv.repo, inv.number)
    mirror = fetch_pull_request(pr, ctx)
    work = ctx.data_dir / "work" / f"accept-{ctx.job_id}"
    remove_tree(work)
    try:
        base = prepare_baseline(mirror, pr.base_sha, work, ref="base")
        head_dir = work / "head"
        materialize(mirror, pr.head_sha, head_dir)
        suite = base.config.evaluation_dir
        reason = f"accepted in pull request #{pr.number} of {pr.repo} by {inv.login or 'a maintainer'}"
        entry = registry.accept(ctx.data_dir, pr.repo, base.directory / suite, head_dir / suite, reason)
    except ProctorError as exc:
        reply(inv, ctx, f"Could not accept the evaluation suite: {hygiene.inline(str(exc))}")
        return False
    finally:
        remove_tree(work)
    ctx.store.accept_suite(pr.repo, pr.number, entry.evaluator_id, entry.version)
    accepted = text.REPLY_ACCEPTED.format(version=entry.version, evaluator_id=entry.evaluator_id[:12])
    reply(inv, ctx, accepted)
    score_pull_request(pr, ctx, rerun=True)
    return True


Command = Callable[[Invocation, "JobContext"], bool]
COMMANDS: dict[str, Command] = {
    "run": _run,
    "campaign": _campaign,
    "deliver": _deliver,
    "accept-evaluator": _accept_evaluator,
}
