"""The app scaled out: web and two workers as separate processes on a real PostgreSQL and redis-server."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text

from github_app.store import engine_url
from tests import servers
from tests.github_app.conftest import REPO, Harness
from tests.github_app.test_reliability import _free_port, _send, _start, _wait_done

postgres_server, postgres_url = servers.postgres_server, servers.postgres_url
redis_server, redis_url = servers.redis_server, servers.redis_url
BURST = 40


def test_two_workers_on_postgresql_process_a_burst_of_deliveries_exactly_once(
    harness: Harness, tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROCTOR_")}
    env.update(harness.env, PROCTOR_DATA_DIR=str(tmp_path / "data"), PROCTOR_DB=postgres_url)
    env["PROCTOR_QUEUE"] = redis_url
    port, log = _free_port(), tmp_path / "app.log"
    deliveries = [
        ("issue_comment", harness.comment_payload(50, f"/proctor deliver {n}"), f"burst-{n}")
        for n in range(BURST)
    ]
    web = _start(env, port, log, "web")
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "github_app", "worker"],
            env=env,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        for _ in range(2)
    ]
    try:
        statuses = [_send(port, *delivery) for delivery in deliveries]
        statuses += [_send(port, *delivery) for delivery in deliveries[:10]]  # GitHub redelivers some
        statuses.append(_send(port, "ping", {"zen": "hi", "hook_id": 1}, str(uuid.uuid4())))
        counts = _wait_done(port)
    finally:
        for process in (web, *workers):
            process.terminate()
            process.wait(timeout=30)
    assert statuses[: BURST + 10] == [202] * BURST + [200] * 10
    assert counts == {"done": BURST}
    replies = [c["body"] for c in harness.fake.comments_on(REPO, 50)]
    for n in range(BURST):
        assert sum(f"proctor:reply:burst-{n} " in body for body in replies) == 1, n
    assert len(replies) == BURST
    engine = create_engine(engine_url(postgres_url))
    with engine.connect() as conn:
        owners = conn.execute(text("SELECT count(DISTINCT owner) FROM jobs")).scalar()
    engine.dispose()
    assert owners == 2  # both workers took part


def test_a_claim_from_another_machine_is_reclaimed_only_once_its_renewals_stop(
    postgres_url: str, tmp_path: Path
) -> None:
    import time

    from github_app.queue import JobQueue
    from github_app.store import NewJob, Store

    store = Store(postgres_url, lease_s=5.0)
    job_id = store.record_delivery("d-1", "pull_request", "opened", b"{}", NewJob("o/r", 1, "a"))
    assert job_id and store.claim(job_id) is not None
    with store.engine.begin() as conn:  # claimed by a worker elsewhere, renewed just now
        conn.execute(text("UPDATE jobs SET owner = 'other-host:42:1', updated_at = :t"), {"t": time.time()})
    assert store.reclaim() == []
    with store.engine.begin() as conn:  # ... and then its renewals stopped
        conn.execute(text("UPDATE jobs SET updated_at = :t"), {"t": time.time() - 6.0})
    assert store.reclaim() == [job_id]
    assert store.recover() == [job_id] and store.claim(job_id) is not None

    queue = JobQueue("sqlite", tmp_path / "queue.sqlite3")
    queue.beat_s, queue.on_beat = 0.05, store.touch
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE jobs SET updated_at = 0"))

    def handler(_job_id: int) -> None:
        time.sleep(0.3)

    queue._handler = handler
    queue._run(job_id)  # a running job renews its claim while it runs
    with store.engine.connect() as conn:
        renewed = conn.execute(text("SELECT updated_at FROM jobs")).scalar()
    assert renewed is not None and time.time() - renewed < 5.0
    assert store.reclaim() == []
