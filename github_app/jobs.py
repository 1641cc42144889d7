"""Running one job: claim it, dispatch its event to the router with a `JobContext`, record the outcome.

A job that raises is retried later (GitHub down, a transient git failure) up to `RETRY_DELAYS_S`; one whose
worker was killed is re-run by the next worker (`Store.recover`), and the handlers are written so that a re-run
finishes what the dead one started instead of doing it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from github_app.port import GitHubPort
from github_app.queue import RETRY_DELAYS_S, JobQueue
from github_app.router import JobContext, Router
from github_app.store import JOB_DONE, JOB_FAILED, JOB_PENDING, Store
from github_app.webhook import Event

log = logging.getLogger("proctor.app.jobs")


PortFactory = Callable[[int], GitHubPort]


def installation_id(event: Event) -> int | None:
    installation = event.payload.get("installation")
    value = installation.get("id") if isinstance(installation, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class JobRunner:
    def __init__(
        self,
        store: Store,
        queue: JobQueue,
        router: Router,
        ports: PortFactory,
        data_dir: Path,
        public_url: str = "",
        campaign_queue: str = "",
    ) -> None:
        self.store, self.queue, self.router, self.ports = store, queue, router, ports
        self.data_dir, self.public_url, self.campaign_queue = data_dir, public_url, campaign_queue

    def recover(self) -> int:
        """Re-enqueue what was recorded and not finished (a restart after a crash or kill -9)."""
        pending = self.store.recover()
        for job_id in pending:
            self.queue.enqueue(job_id)
        return len(pending)

    def run(self, job_id: int) -> None:
        try:
            job = self.store.claim(job_id)
        except Exception:  # the database is busy or away: the queue message must not be lost with it
            log.exception("could not claim job %s; trying again shortly", job_id)
            self.queue.enqueue(job_id, delay_s=RETRY_DELAYS_S[0])
            return
        if job is None:
            return  # done already, or another worker has it: a repeated queue message
        event = Event(job.event, job.delivery_id, job.payload)
        installation = installation_id(event)
        if installation is None:
            log.warning("delivery %s has no installation id: nothing to do", job.delivery_id)
            self.store.finish(job.id, JOB_DONE, "no installation in the payload")
            return
        try:
            ctx = JobContext(
                self.ports(installation),
                self.store,
                self.data_dir,
                job.id,
                self.public_url,
                job.attempts,
                self.campaign_queue,
            )
            self.router.dispatch(event, ctx)
        except Exception as exc:  # any failure is this job's, retried later; the worker goes on
            self._failed(job.id, job.attempts, f"{type(exc).__name__}: {exc}")
            return
        self.store.finish(job.id, JOB_DONE)

    def _failed(self, job_id: int, attempts: int, error: str) -> None:
        if attempts <= len(RETRY_DELAYS_S):
            delay = RETRY_DELAYS_S[attempts - 1]
            log.warning("job %s failed (attempt %s), retrying in %ss: %s", job_id, attempts, delay, error)
            self.store.finish(job_id, JOB_PENDING, error)
            self.queue.enqueue(job_id, delay_s=delay)
        else:
            log.error("job %s failed for good after %s attempts: %s", job_id, attempts, error)
            self.store.finish(job_id, JOB_FAILED, error)
