"""`proctor worker`: take jobs from a queue one at a time, beat a lease while each runs, store the result.

A job's kind is `module:function`; the function gets the payload and returns a picklable result. What it
raises is stored as a `JobFailure`, so the owner is never left waiting for a job that cannot succeed.
"""

from __future__ import annotations

import importlib
import logging
import os
import pickle
import socket
import threading
from collections.abc import Callable
from typing import Any

from core.errors import redact_url
from core.jobs.queue import JobFailure, JobQueue

log = logging.getLogger("proctor.worker")
DEFAULT_HEARTBEAT_S = 2.0
_POLL_S = 0.05


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def resolve_kind(kind: str) -> Callable[[Any], Any]:
    module, _, name = kind.partition(":")
    function = getattr(importlib.import_module(module), name, None)
    if not callable(function):
        raise LookupError(f"job kind {kind!r} names no function")
    return function  # type: ignore[no-any-return]


class _Heartbeat:
    """Rewrites the job's lease every `interval_s` from a thread until stopped."""

    def __init__(self, queue: JobQueue, key: str, attempt: int, interval_s: float) -> None:
        self.queue, self.key, self.attempt, self.interval_s = queue, key, attempt, interval_s
        self.stop = threading.Event()
        self.cancelled = False
        self.thread = threading.Thread(target=self._beat, name=f"lease {key}", daemon=True)

    def _beat(self) -> None:
        beat = 0
        while True:
            beat += 1
            try:
                self.queue.put(self.key, "lease", pickle.dumps((worker_id(), beat, self.attempt)))
                if self.queue.get(self.key, "cancel") is not None:
                    self._cancel()
            except Exception:  # the queue is briefly away: the owner re-queues only after a whole lease
                log.warning("could not renew the lease of job %s", self.key)
            if self.stop.wait(self.interval_s):
                return

    def _cancel(self) -> None:
        """Cancelled while it runs: stop the processes it started (an evaluator), so the worker is free."""
        from core.campaign.worker import kill_children

        log.info("job %s was cancelled: stopping what it runs", self.key)
        self.cancelled = True
        kill_children()

    def __enter__(self) -> _Heartbeat:
        self.queue.put(self.key, "lease", pickle.dumps((worker_id(), 0, self.attempt)))
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop.set()
        self.thread.join()


def run_job(queue: JobQueue, key: str, attempt: int, heartbeat_s: float) -> str:
    """Run one job message; returns what happened (for the worker's log)."""
    if queue.get(key, "result") is not None:
        return "already done"
    if queue.get(key, "cancel") is not None:
        return "cancelled"
    spec = queue.get(key, "spec")
    if spec is None:
        return "forgotten"
    kind, payload = pickle.loads(spec)
    with _Heartbeat(queue, key, attempt, heartbeat_s) as heartbeat:
        try:
            value = resolve_kind(kind)(payload)
        except Exception as exc:  # the job's failure, reported to its owner; the worker goes on
            value = JobFailure(f"{type(exc).__name__}: {exc}")
    if heartbeat.cancelled or queue.get(key, "cancel") is not None:
        queue.drop(key, "lease")
        return "cancelled while it ran"  # what it returned is the cancellation's doing, not a result
    kept = queue.put(key, "result", pickle.dumps(value), once=True)
    queue.drop(key, "lease")  # after the result: a lease without one means "running, or its worker died"
    return "done" if kept else "done (another worker's result was first)"


def serve(
    queue: JobQueue,
    stop: threading.Event,
    *,
    heartbeat_s: float = DEFAULT_HEARTBEAT_S,
    max_jobs: int | None = None,
) -> int:
    """Run jobs until `stop` is set (or `max_jobs` ran); returns how many ran."""
    ran = 0

    def runner(key: str, attempt: int) -> None:
        log.info("job %s (attempt %s): %s", key, attempt, run_job(queue, key, attempt, heartbeat_s))

    queue.runner = runner
    while not stop.is_set() and (max_jobs is None or ran < max_jobs):
        try:
            task = queue.huey.dequeue()
        except Exception as exc:  # the queue's server restarting: wait for it, as a service should
            log.warning(
                "queue %s unreachable (%s: %s); retrying in 1 s",
                redact_url(queue.url),
                type(exc).__name__,
                exc,
            )
            stop.wait(1.0)
            continue
        if task is None:
            stop.wait(_POLL_S)
            continue
        queue.huey.execute(task)
        ran += 1
    return ran
