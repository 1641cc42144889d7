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
