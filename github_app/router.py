"""Which handler runs for which event (STYLE §4, after gidgethub's `Router`): composed once, in `handlers`.

The webhook asks the router whether a delivery has work (`job_for`) before recording it, so deliveries
nobody handles are answered 202 and never become jobs; the worker later dispatches the job's event here,
with the `JobContext` every handler gets beside it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from github_app.port import GitHubPort
from github_app.store import NewJob, Store
from github_app.webhook import Event

log = logging.getLogger("proctor.app.router")


@dataclass(frozen=True)
class JobContext:
    """What a handler may use besides the event: GitHub (one installation), app state, the data dir."""

    gh: GitHubPort
    store: Store
    data_dir: Path
    job_id: int
    public_url: str = ""
    attempt: int = 1
    campaign_queue: str = ""  # a campaign's measurements go to this queue's `proctor worker`s ("" = locally)


Handler = Callable[[Event, JobContext], None]
Predicate = Callable[[Event], bool]


@dataclass(frozen=True)
class _Route:
    event: str
    action: str | None
    when: Predicate | None
    handler: Handler


class Router:
    def __init__(self) -> None:
        self._routes: list[_Route] = []

    def register(
        self, event: str, action: str | None = None, *, when: Predicate | None = None
    ) -> Callable[[Handler], Handler]:
        def add(handler: Handler) -> Handler:
            self._routes.append(_Route(event, action, when, handler))
            return handler

        return add

    def handlers(self, event: Event) -> list[Handler]:
        return [
            r.handler
            for r in self._routes
            if r.event == event.name
            and (r.action is None or r.action == event.action)
            and (r.when is None or r.when(event))
        ]

    def job_for(self, event: Event) -> NewJob | None:
        """The job row to record for `event`, or None when no handler wants it."""
        try:
            wanted = bool(self.handlers(event))
        except Exception:  # a payload no predicate foresaw: nothing to do with it, and never a 500
            log.warning(
                "delivery %s: predicates failed on its payload; ignored", event.delivery_id, exc_info=True
            )
            return None
        if not wanted:
            return None
        return _job_fields(event)

    def dispatch(self, event: Event, ctx: JobContext) -> int:
        handlers = self.handlers(event)
        if not handlers:
            log.info("no handler for %s.%s (delivery %s)", event.name, event.action, event.delivery_id)
        for handler in handlers:
            handler(event, ctx)
        return len(handlers)


def _job_fields(event: Event) -> NewJob:
    payload = event.payload
    repo = payload.get("repository")
    full_name = str(repo.get("full_name", "")) if isinstance(repo, dict) else ""
    pull = payload.get("pull_request")
    if isinstance(pull, dict):
        head = pull.get("head")
        sha = str(head.get("sha", "")) if isinstance(head, dict) else ""
        return NewJob(full_name, _int(pull.get("number")), sha)
    issue = payload.get("issue")
    if isinstance(issue, dict):
        return NewJob(full_name, _int(issue.get("number")), "")
    return NewJob(full_name)


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
