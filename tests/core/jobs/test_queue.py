"""The job interface end to end: real `proctor worker` processes, on SQLite (embedded) and a real Redis."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from core.jobs import JobFailure, JobQueue, sqlite_url
from core.jobs.worker import serve
from tests import servers
from tests.core.jobs.workers import start_worker, stop_worker, workers

redis_server, redis_url = servers.redis_server, servers.redis_url
KINDS = "tests.core.jobs.kinds"


def _drain(queue: JobQueue, jobs: int) -> None:
    import threading

    serve(queue, threading.Event(), heartbeat_s=0.1, max_jobs=jobs)


def test_an_idempotency_key_queues_the_work_once_and_keeps_one_result(tmp_path: Path) -> None:
    queue = JobQueue(sqlite_url(tmp_path / "q.db"))
    assert queue.enqueue(f"{KINDS}:echo", {"n": 1}, "k1") == "k1"
    queue.enqueue(f"{KINDS}:echo", {"n": 2}, "k1")  # the same key again: nothing new
    assert queue.status("k1").state == "queued"
    assert queue.huey.storage.queue_size() == 1
    _drain(queue, 1)
    assert queue.status("k1").state == "done"
    assert queue.result("k1") == {"n": 1}
    assert [o.value for o in queue.wait(["k1"])] == [{"n": 1}]


def test_cancel_and_supersede_keep_a_queued_job_from_running(tmp_path: Path) -> None:
    queue = JobQueue(sqlite_url(tmp_path / "q.db"))
    queue.enqueue(f"{KINDS}:echo", "old", "pr-1@aaa")
    queue.enqueue(f"{KINDS}:echo", "new", "pr-1@bbb", supersedes="pr-1@aaa")
    assert queue.status("pr-1@aaa").state == "cancelled"
    _drain(queue, 2)
    assert queue.result("pr-1@aaa") is None
    assert queue.result("pr-1@bbb") == "new"
    outcomes = {o.key: o.state for o in queue.wait(["pr-1@aaa", "pr-1@bbb"])}
    assert outcomes == {"pr-1@aaa": "cancelled", "pr-1@bbb": "done"}
    queue.forget("pr-1@bbb")
    assert queue.status("pr-1@bbb").state == "unknown"


def test_a_job_cancelled_while_it_runs_is_stopped_and_reported_cancelled(
    redis_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "starts.log"
    queue = JobQueue(redis_url)
    with workers(redis_url, 1):
        queue.enqueue(f"{KINDS}:child", {"log": str(log), "seconds": 60}, "pr-2@aaa")
        _started(log, 1)
        assert queue.status("pr-2@aaa").state == "running"
        started = time.monotonic()
        queue.enqueue(f"{KINDS}:echo", "newer", "pr-2@bbb", supersedes="pr-2@aaa")
        outcomes = {o.key: (o.state, o.value) for o in queue.wait(["pr-2@aaa", "pr-2@bbb"])}
        assert time.monotonic() - started < 30  # the 60 s child was killed: the worker got to the newer job
    assert outcomes == {"pr-2@aaa": ("cancelled", None), "pr-2@bbb": ("done", "newer")}
    assert queue.result("pr-2@aaa") is None  # what it returned once its child was killed is no result


def test_a_job_that_raises_reports_the_error_to_its_owner(tmp_path: Path) -> None:
    queue = JobQueue(sqlite_url(tmp_path / "q.db"))
    queue.enqueue(f"{KINDS}:boom", 7, "bad")
    _drain(queue, 1)
    assert queue.result("bad") == JobFailure("ValueError: cannot do 7")


def test_a_worker_process_runs_jobs_from_an_embedded_sqlite_queue(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "q.db")
    queue = JobQueue(url)
    for n in range(3):
        queue.enqueue(f"{KINDS}:echo", n, f"job-{n}")
    with workers(url, 1):
        outcomes = list(queue.wait([f"job-{n}" for n in range(3)]))
    assert sorted(o.value for o in outcomes) == [0, 1, 2]


def _started(log: Path, count: int, timeout_s: float = 30.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pids = [int(line) for line in log.read_text().split()] if log.exists() else []
        if len(pids) >= count:
            return pids
        time.sleep(0.05)
    raise AssertionError(
        f"only {log.read_text() if log.exists() else 'no'} job start(s) within {timeout_s} s"
    )


def test_a_job_whose_worker_is_killed_runs_again_on_another_and_counts_once(
    redis_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "starts.log"
    queue = JobQueue(redis_url, lease_s=4.0)  # far above the 0.3 s heartbeat, even on a loaded machine
    first, second = start_worker(redis_url), start_worker(redis_url)
    try:
        queue.enqueue(f"{KINDS}:slow", {"log": str(log), "seconds": 2.0}, "the-job")
        [victim_pid] = _started(log, 1)
        victim = first if first.pid == victim_pid else second
        survivor = second if victim is first else first
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        outcomes = list(queue.wait(["the-job"]))
    finally:
        stop_worker(first)
        stop_worker(second)
    assert _started(log, 2) == [victim_pid, survivor.pid]  # it ran again, on the other worker
    assert len(outcomes) == 1  # and its owner counted it once
    assert (outcomes[0].state, outcomes[0].value, outcomes[0].attempts) == ("done", survivor.pid, 2)


def test_a_job_every_worker_drops_is_reported_lost_after_its_attempts(redis_url: str) -> None:
    import threading

    queue = JobQueue(redis_url, lease_s=0.5)
    done = threading.Event()

    def swallow() -> None:  # workers that take the message and die before they write a lease
        while not done.is_set():
            queue.huey.storage.dequeue()

    thief = threading.Thread(target=swallow)
    thief.start()
    try:
        queue.enqueue(f"{KINDS}:echo", 1, "orphan")
        [outcome] = list(queue.wait(["orphan"]))
    finally:
        done.set()
        thief.join()
    assert (outcome.state, outcome.attempts) == ("lost", 3)
    assert "no worker took it" in outcome.reason


@pytest.mark.parametrize("url", ["http://example.invalid/q", "sqlite:///no/such/dir/q.db"])
def test_a_bad_queue_url_says_what_is_expected(url: str) -> None:
    from core.jobs import JobQueueError

    with pytest.raises(JobQueueError, match="queue"):
        JobQueue(url)


def test_sigterm_lets_a_worker_finish_its_job_then_exit_0(redis_url: str, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    queue = JobQueue(redis_url)
    worker = start_worker(redis_url)
    try:
        queue.enqueue(f"{KINDS}:slow", {"log": str(log), "seconds": 1.0}, "long")
        _started(log, 1)
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0
    finally:
        stop_worker(worker)
    assert queue.result("long") == worker.pid  # finished, not abandoned


def test_a_record_that_is_not_the_candidates_own_is_its_failure() -> None:
    """Something that writes into the queue (a candidate that reached it) cannot hand one candidate's score
    to another."""
    import dataclasses
    from types import SimpleNamespace

    from core.campaign.model import CandidateRecord
    from core.campaign.remote_measure import _record
    from core.jobs.queue import Outcome
    from core.sandbox import SandboxChoice

    job = SimpleNamespace(
        index=2,
        commit="b" * 40,
        ref="cand/x",
        parent_ref="main",
        sandbox=SandboxChoice("process", "none", "asked"),
    )
    forged = CandidateRecord(
        index=3, ref="cand/y", commit="c" * 40, parent_ref="main", status="scored", score=1.0
    )
    record = _record(job, Outcome("k", "done", forged))  # type: ignore[arg-type]
    assert (record.index, record.status, record.score) == (2, "failed", None)
    assert "record of candidate 3" in (record.reason or "")
    own = dataclasses.replace(forged, index=2, commit="b" * 40)
    assert _record(job, Outcome("k", "done", own)) is own  # type: ignore[arg-type]
