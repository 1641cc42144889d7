"""Jobs on huey (SPEC §5.6): `SqliteHuey` in PROCTOR_DATA_DIR by default, Redis when PROCTOR_QUEUE says so.

The queue only carries job ids; the jobs themselves live in the app's database (the outbox), so the queue
can lose or repeat a message without losing or repeating work: a worker claims a job before running it, and
on start re-enqueues every job that is pending or whose worker died.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("proctor.app.queue")
_POLL_S = 0.02
RETRY_DELAYS_S = (2.0, 10.0, 30.0, 120.0, 600.0)


class JobQueue:
    """A huey instance with one task, `proctor_job(job_id)`, whose body is the handler the worker sets."""

    def __init__(self, url: str, sqlite_file: Path) -> None:
        from core.jobs import is_redis, open_huey, sqlite_url

        self.huey: Any
        if is_redis(url):
            self.huey = open_huey(url, "proctor-app")
        else:
            # Not fsynced: the outbox in the app database is the record; a restart re-enqueues from it.
            self.huey = open_huey(sqlite_url(sqlite_file), "proctor-app", fsync=False)
        self._handler: Callable[[int], None] | None = None
        self._task = self.huey.task(name="proctor_job")(self._run)

    def _run(self, job_id: int) -> None:
        if self._handler is None:
            raise RuntimeError("a proctor_job ran in a process without a worker")
        self._handler(job_id)

    def enqueue(self, job_id: int, delay_s: float = 0.0) -> None:
        if delay_s > 0:
            self._task.schedule(args=(job_id,), delay=delay_s)
        else:
            self._task(job_id)

    def run_pending(self, handler: Callable[[int], None]) -> int:
        """Run what is queued now, then return how many ran (tests, and `proctor-app` draining on exit)."""
        self._handler = handler
        ran = 0
        while (task := self.huey.dequeue()) is not None:
            self.huey.execute(task)
            ran += 1
        return ran

    def work(self, handler: Callable[[int], None], stop: threading.Event) -> None:
        """Run jobs one at a time until `stop` is set (the in-process consumer: no signals, no threads).

        A failure of the queue's own storage (a locked SQLite file under load) is logged and waited out: the
        loop must outlive it, or the web half would go on accepting work nobody runs.
        """
        self._handler = handler
        next_schedule = 0.0
        while not stop.is_set():
            try:
                now = time.monotonic()
                if now >= next_schedule:
                    for task in self.huey.read_schedule():
                        self.huey.enqueue(task)
                    next_schedule = now + 1.0
                task = self.huey.dequeue()
                if task is None:
                    stop.wait(_POLL_S)
                    continue
                self.huey.execute(task)
            except Exception:
                log.exception("job queue failure; retrying in 1 s")
                stop.wait(1.0)
