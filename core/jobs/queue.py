"""The job interface over huey: enqueue with an idempotency key, cancel/supersede, status, result, wait.

huey carries the messages; its key-value result store carries everything else, under the job's key:

    job:<key>:spec     (kind, payload), written once (`put_if_empty`): a second enqueue of a key is a no-op
    job:<key>:lease    the running worker's heartbeat (worker id, beat counter, attempt)
    job:<key>:result   the outcome, written once (`put_if_empty`): a job that ran twice is counted once
    job:<key>:cancel   set by `cancel`; a worker skips a cancelled job

huey pops a message when a worker takes it, so a worker killed with SIGKILL would lose the job. The waiting
owner (the process that enqueued and waits, e.g. the campaign) therefore watches each lease: a heartbeat that
has not changed for `lease_s` (measured on the owner's clock, so machines' clocks need not agree), or a job
that nobody took while the queue is empty, is put back on the queue with the next attempt number. If the old
worker was only slow, both may finish: the first result is the one kept, so nothing is counted twice.
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from core.errors import JobQueueError, redact_url
from core.jobs.backend import open_huey

DEFAULT_NAME = "proctor-jobs"
LEASE_ENV = "PROCTOR_JOB_LEASE_S"
DEFAULT_LEASE_S = 30.0
MAX_ATTEMPTS = 3
_TASK = "proctor.job"

State = Literal["queued", "running", "done", "cancelled", "unknown"]


@dataclass(frozen=True)
class JobFailure:
    """What a job function raised, stored as its result (a job never hangs its owner by raising)."""

    error: str


@dataclass(frozen=True)
class Outcome:
    """One finished job as its owner sees it: the result (None when cancelled or lost) and why."""

    key: str
    state: Literal["done", "cancelled", "lost"]
    value: Any = None
    attempts: int = 1
    reason: str = ""


@dataclass(frozen=True)
class JobStatus:
    state: State
    attempt: int = 0
    worker: str = ""


@dataclass
class _Watch:
    """The owner's view of one outstanding job: the last lease it saw and when that changed."""

    attempt: int
    since: float
    lease: bytes | None = None
    seen: set[str] = field(default_factory=set)


def _lease_s() -> float:
    raw = os.environ.get(LEASE_ENV, "").strip()
    try:
        return float(raw) if raw else DEFAULT_LEASE_S
    except ValueError:
        raise JobQueueError(f"{LEASE_ENV}={raw!r} is not a number of seconds") from None


class JobQueue:
    """Jobs on one huey queue; the same class serves the owner (enqueue, wait) and `proctor worker`."""

    def __init__(self, url: str, *, name: str = DEFAULT_NAME, lease_s: float | None = None) -> None:
        self.url = url
        self.huey = open_huey(url, name)
        self.storage: Any = self.huey.storage
        self.lease_s = lease_s if lease_s is not None else _lease_s()
        self.task = self.huey.task(name=_TASK)(self._run_message)
        self.runner: Callable[[str, int], None] | None = None

    def check(self) -> None:
        """Fail now, in one line, when the queue's server cannot be reached (down, wrong password)."""
        try:
            self.storage.queue_size()
        except Exception as exc:  # redis-py's and sqlite3's own errors: no common base class to name
            raise JobQueueError(
                f"queue {redact_url(self.url)} cannot be reached: {type(exc).__name__}: {exc}", url=self.url
            ) from exc

    def _run_message(self, key: str, attempt: int) -> None:
        if self.runner is None:
            raise JobQueueError("a Proctor job reached a process that is not a worker")
        self.runner(key, attempt)

    # -- storage helpers

    def get(self, key: str, part: str) -> bytes | None:
        from huey.constants import EmptyData

        value = self.storage.peek_data(f"job:{key}:{part}")
        return None if value is EmptyData else bytes(value)

    def put(self, key: str, part: str, value: bytes, *, once: bool = False) -> bool:
        name = f"job:{key}:{part}"
        if once:
            return bool(self.storage.put_if_empty(name, value))
        self.storage.put_data(name, value)
        return True

    def drop(self, key: str, part: str) -> None:
        self.storage.delete_data(f"job:{key}:{part}")

    # -- the owner's side

    def enqueue(self, kind: str, payload: Any, key: str, *, supersedes: str | None = None) -> str:
        """Queue `kind(payload)` under `key`; a key already queued, running or done is not queued again.

        `kind` is a `module:function` the worker imports. `supersedes` cancels an older job first (a newer
        push makes the older one's work pointless).
        """
        if supersedes is not None and supersedes != key:
            self.cancel(supersedes)
        if self.put(key, "spec", pickle.dumps((kind, payload)), once=True):
            self.drop(key, "cancel")  # a cancel belongs to the spec it cancelled (see `withdraw`)
            self.task(key, 1)
        return key

    def withdraw(self, key: str) -> None:
        """Cancel, and let a later `enqueue` of the same key queue it afresh (an interrupted owner that will
        resume); a result that arrives meanwhile is kept for it."""
        self.cancel(key)
        self.drop(key, "spec")

    def cancel(self, key: str) -> None:
        """A queued job will not run; a running one's processes are killed at its worker's next heartbeat
        (the job function itself returns when they are gone); either way its owner sees it `cancelled`."""
        self.put(key, "cancel", b"1")

    def status(self, key: str) -> JobStatus:
        lease = self.get(key, "lease")
        worker, _beat, attempt = pickle.loads(lease) if lease else ("", 0, 0)
        if self.get(key, "cancel") is not None:
            return JobStatus("cancelled", attempt, worker)
        if self.get(key, "result") is not None:
            return JobStatus("done", attempt, worker)
        if lease is not None:
            return JobStatus("running", attempt, worker)
        return JobStatus("queued" if self.get(key, "spec") is not None else "unknown")

    def result(self, key: str) -> Any:
        """The job's result (a `JobFailure` if it raised); None while it has none."""
        raw = self.get(key, "result")
        return pickle.loads(raw) if raw is not None else None

    def forget(self, key: str) -> None:
        """Remove everything stored under `key` (after the owner has recorded its outcome)."""
        for part in ("spec", "lease", "result", "cancel"):
            self.drop(key, part)

    def wait(self, keys: Iterable[str], *, poll_s: float = 0.1) -> Iterator[Outcome]:
        """Yield each job's outcome once, as it finishes, re-queueing jobs whose worker stopped beating."""
        watching = {key: _Watch(attempt=1, since=time.monotonic()) for key in keys}
        while watching:
            for key in list(watching):
                outcome = self._check(key, watching[key])
                if outcome is not None:
                    del watching[key]
                    yield outcome
            if watching:
                time.sleep(poll_s)

    def _check(self, key: str, watch: _Watch) -> Outcome | None:
        if self.get(key, "cancel") is not None:
            return Outcome(key, "cancelled", None, watch.attempt, "cancelled")
        raw = self.get(key, "result")
        if raw is not None:
            return Outcome(key, "done", pickle.loads(raw), watch.attempt)
        lease = self.get(key, "lease")
        now = time.monotonic()
        if lease != watch.lease:
            watch.lease, watch.since = lease, now
            if lease is not None:
                watch.seen.add(str(pickle.loads(lease)[0]))
            return None
        if now - watch.since < self.lease_s or (lease is None and self.storage.queue_size() > 0):
            return None  # beating, or still waiting its turn in the queue
        return self._requeue(key, watch, now)

    def _requeue(self, key: str, watch: _Watch, now: float) -> Outcome | None:
        if watch.attempt >= MAX_ATTEMPTS:
            workers = ", ".join(sorted(watch.seen)) or "no worker took it"
            reason = f"lost {watch.attempt} times (no heartbeat for {self.lease_s:g} s; workers: {workers})"
            return Outcome(key, "lost", None, watch.attempt, reason)
        if self.get(key, "spec") is None:
            return Outcome(key, "lost", None, watch.attempt, "the job was removed from the queue")
        watch.attempt += 1
        self.drop(key, "lease")
        watch.lease, watch.since = None, now
        self.task(key, watch.attempt)
        return None
