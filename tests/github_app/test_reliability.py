"""kill -9 with deliveries queued and a job running, restart: every delivery processed exactly once."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from github_app.webhook import signature
from tests.core.campaign.conftest import predict
from tests.github_app.conftest import REPO, SECRET, Harness

REPLIES = 30
PULLS = (40, 41, 42, 43)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(env: dict[str, str], port: int, log: Path, *mode: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "github_app", *mode, "--port", str(port)],
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"proctor-app did not start: {log.read_text()[-2000:]}")


def _send(port: int, event: str, payload: dict[str, Any], delivery: str) -> int:
    body = json.dumps(payload).encode()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": signature(body, SECRET),
    }
    return httpx.post(
        f"http://127.0.0.1:{port}/webhook", content=body, headers=headers, timeout=10
    ).status_code


def _oversized_status(port: int) -> int:
    """Announce 30 MiB, send 1 KiB: the answer must come without the rest of the body ever being sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        head = (
            "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"X-GitHub-Event: ping\r\nX-GitHub-Delivery: big\r\nContent-Length: {30 * 1024 * 1024}\r\n\r\n"
        )
        sock.sendall(head.encode() + b" " * 1024)
        answer = sock.recv(4096).decode("latin-1")
    return int(answer.split()[1])


def _wait_done(port: int, timeout: float = 180) -> dict[str, int]:
    deadline = time.monotonic() + timeout
    counts: dict[str, int] = {}
    while time.monotonic() < deadline:
        counts = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()["jobs"]
        if counts.get("pending", 0) == 0 and counts.get("running", 0) == 0:
            return counts
        time.sleep(0.2)
    raise AssertionError(f"jobs still unfinished: {counts}")


def test_kill_9_under_a_burst_then_restart_is_exactly_once(harness: Harness, tmp_path: Path) -> None:
    for number in PULLS:
        harness.project.ws.branch(
            f"pr-{number}",
            {"solution/predict.py": predict(f"0.{number + 50}", before="import time\ntime.sleep(1)\n")},
        )
    harness.project.publish()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROCTOR_")}
    env.update(harness.env, PROCTOR_DATA_DIR=str(tmp_path / "app-data"))
    port, log = _free_port(), tmp_path / "app.log"
    deliveries: list[tuple[str, dict[str, Any], str]] = []
    for number in PULLS:
        deliveries.append(
            ("pull_request", harness.pull_payload("opened", number, f"pr-{number}"), str(uuid.uuid4()))
        )
    for index in range(REPLIES):
        deliveries.append(
            ("issue_comment", harness.comment_payload(50, f"/proctor deliver {index}"), f"reply-{index}")
        )
    app = _start(env, port, log)
    try:
        statuses = [_send(port, *d) for d in deliveries[:5]]
        statuses += [_send(port, *d) for d in deliveries[:5]]  # GitHub redelivers some
        statuses += [_send(port, *d) for d in deliveries[5:]]
        before = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()["jobs"]
        os.kill(app.pid, signal.SIGKILL)
        app.wait()
        assert before.get("pending", 0) + before.get("running", 0) > 0, before  # work was still queued
        assert statuses == [202] * 5 + [200] * 5 + [202] * (len(deliveries) - 5)
        app = _start(env, port, log)
        counts = _wait_done(port)
    finally:
        app.kill()
        app.wait()
    assert counts == {"done": len(deliveries)}
    replies = [c["body"] for c in harness.fake.comments_on(REPO, 50)]
    for index in range(REPLIES):
        assert sum(f"proctor:reply:reply-{index} " in body for body in replies) == 1, index
    assert len(replies) == REPLIES
    for number in PULLS:
        runs = harness.fake.runs_for(harness.project.sha(f"pr-{number}"))
        assert [r.status for r in runs] == ["completed"], (number, [r.history for r in runs])
        assert runs[0].conclusion == "success"
        assert len(harness.fake.comments_on(REPO, number)) == 1


def test_web_and_worker_as_separate_processes(harness: Harness, tmp_path: Path) -> None:
    harness.project.ws.branch("split", {"solution/predict.py": predict("0.8")})
    harness.project.publish()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROCTOR_")}
    env.update(harness.env, PROCTOR_DATA_DIR=str(tmp_path / "split-data"))
    port, log = _free_port(), tmp_path / "split.log"
    web = _start(env, port, log, "web")
    worker = subprocess.Popen(
        [sys.executable, "-m", "github_app", "worker"],
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    try:
        assert _oversized_status(port) == 413
        assert _send(port, "pull_request", harness.pull_payload("opened", 60, "split"), "split-1") == 202
        assert _wait_done(port) == {"done": 1}
    finally:
        for proc in (web, worker):
            proc.terminate()
            proc.wait(timeout=30)
    assert worker.returncode == 0  # SIGTERM stops the worker cleanly
    (run,) = harness.fake.runs_for(harness.project.sha("split"))
    assert run.conclusion == "success"
