"""The in-process job loop and the claim: a queue message is never the only record of a job."""

from __future__ import annotations

import socket
import sqlite3
import threading
from pathlib import Path

from github_app.queue import JobQueue
from github_app.store import NewJob, Store


def test_the_worker_loop_outlives_a_storage_failure(tmp_path: Path) -> None:
    queue = JobQueue("sqlite", tmp_path / "queue.sqlite3")
    queue.enqueue(1)
    real, calls = queue.huey.dequeue, []

    def flaky() -> object:
        calls.append(1)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return real()

    queue.huey.dequeue = flaky
    ran: list[int] = []
    stop = threading.Event()

    def handler(job_id: int) -> None:
        ran.append(job_id)
        stop.set()

    worker = threading.Thread(target=queue.work, args=(handler, stop))
    worker.start()
    worker.join(20)
    stop.set()
    assert ran == [1] and len(calls) >= 2


def test_a_job_is_claimed_once_and_recovered_when_its_worker_died(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'state.sqlite3'}")
    job_id = store.record_delivery("d-1", "pull_request", "opened", b"{}", NewJob("o/r", 1, "a" * 40))
    assert job_id and store.record_delivery("d-1", "pull_request", "opened", b"{}", NewJob()) is None
    assert store.claim(job_id) is not None
    assert store.claim(job_id) is None  # a repeated queue message finds it taken
    assert store.recover() == []  # its worker (this process) is alive
    with store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE jobs SET owner = ?", (f"{socket.gethostname()}:999999999:1",))
    assert store.recover() == [job_id]  # that worker is gone: the job is pending again
    assert store.claim(job_id) is not None
