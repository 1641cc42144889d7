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
        # Called every `beat_s` while a job runs (the app renews the job's claim: Store.touch), and every
        # `periodic_s` by the worker loop (the app re-enqueues jobs whose worker died: JobRunner.recover).
        self.on_beat: Callable[[int], None] | None = None
        self.beat_s = 30.0
        self.periodic: Callable[[], object] | None = None
        self.periodic_s = 60.0

    def _run(self, job_id: int) -> None:
        if self._handler is None:
            raise RuntimeError("a proctor_job ran in a process without a worker")
        stop = threading.Event()
        beat = threading.Thread(target=self._beat, args=(job_id, stop), daemon=True)
        beat.start()
        try:
            self._handler(job_id)
        finally:
            stop.set()
            beat.join()

    def _beat(self, job_id: int, stop: threading.Event) -> None:
        while not stop.wait(self.beat_s):
            if self.on_beat is not None:
                try:
                    self.on_beat(job_id)
                except Exception:  # the database is briefly away: the next beat tries again
                    log.warning("could not renew the claim of job %s", job_id)

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
        next_schedule, next_periodic = 0.0, time.monotonic() + self.periodic_s
        while not stop.is_set():
            try:
                now = time.monotonic()
                if now >= next_schedule:
                    for task in self.huey.read_schedule():
                        self.huey.enqueue(task)
                    next_schedule = now + 1.0
                if self.periodic is not None and now >= next_periodic:
                    next_periodic = now + self.periodic_s
                    self.periodic()
                task = self.huey.dequeue()
                if task is None:
                    stop.wait(_POLL_S)
                    continue
                self.huey.execute(task)
            except Exception:
                log.exception("job queue failure; retrying in 1 s")
                stop.wait(1.0)
