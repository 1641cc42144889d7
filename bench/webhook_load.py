"""Webhook load (SPEC §11): signed deliveries on loopback at a fixed rate, p50/p99 answer times, against the
minimal FastAPI + HMAC + SQLite anchor in the same run, then every delivery checked processed exactly once.

    .venv/bin/python bench/webhook_load.py [--seconds 30] [--rate 100] [--burst-rate 250] [--burst-seconds 10]

Targets: at `--rate` p99 ≤ 15 ms and ≤ 3× the anchor's p99; at `--burst-rate` p99 ≤ 50 ms with every answer
on time (sustained). `proctor-app` runs as a real process (web and worker together, the default), the fake
GitHub in another; one delivery in five is a `/proctor` command whose job posts one reply, the rest are events
the app records and ignores (GitHub sends many of those). Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from github_app.webhook import signature  # noqa: E402

SECRET = "bench-secret"
APP_ID = 77
REPO = "octo/bench"

ANCHOR = """
import hashlib, hmac, sqlite3, sys
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
import uvicorn

db = sqlite3.connect(sys.argv[2], check_same_thread=False, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, body BLOB)")
app = FastAPI()
SECRET = sys.argv[3].encode()

@app.post("/webhook")
async def webhook(request: Request) -> JSONResponse:
    body = await request.body()
    given = request.headers.get("x-hub-signature-256", "")
    if not hmac.compare_digest("sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest(), given):
        return JSONResponse({}, status_code=401)
    try:
        db.execute("INSERT INTO deliveries VALUES (?, ?)", (request.headers.get("x-github-delivery"), body))
    except sqlite3.IntegrityError:
        return JSONResponse({}, status_code=200)
    return JSONResponse({}, status_code=202)

@app.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}

uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_github(public_key: str, root: str, conn: Connection) -> None:
    """The fake GitHub in its own process; answers "comments" with every comment body it received."""
    from tests.fakes.github_server import FakeGitHub

    with FakeGitHub(public_key, APP_ID, Path(root)) as fake:
        conn.send(fake.url)
        while (message := conn.recv()) != "stop":
            assert message == "comments"
            conn.send([c["body"] for c in fake.comments_on(REPO, 1)])


def _wait_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not come up")


def _payloads() -> tuple[dict[str, Any], dict[str, Any]]:
    hooks = ROOT / "tests" / "fakes" / "github_webhooks"
    command = json.loads((hooks / "issue_comment.created.json").read_text())
    command["installation"] = {"id": 7}
    command["repository"]["full_name"] = REPO
    command["issue"]["number"] = 1
    command["issue"]["pull_request"] = {"url": "x"}
    command["comment"]["body"] = "/proctor deliver"
    command["comment"]["author_association"] = "OWNER"
    ignored = json.loads((hooks / "ping.json").read_text())
    return command, ignored


class Load:
    """Open-loop sender: request i leaves at start + i/rate whatever the earlier answers did."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.local = threading.local()
        self.command, self.ignored = _payloads()
        self.commands: list[str] = []
        self.lock = threading.Lock()

    def _client(self) -> httpx.Client:
        client = getattr(self.local, "client", None)
        if client is None:
            client = self.local.client = httpx.Client(timeout=10)
        return client

    def _one(self, index: int, due: float, tag: str) -> tuple[float, float, int]:
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        is_command = index % 5 == 0
        event, payload = ("issue_comment", self.command) if is_command else ("ping", self.ignored)
        delivery = f"{tag}-{index}-{uuid.uuid4().hex[:8]}"
        body = json.dumps(payload).encode()
        headers = {
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery,
            "X-Hub-Signature-256": signature(body, SECRET),
            "Content-Type": "application/json",
        }
        started = time.perf_counter()
        status = self._client().post(f"{self.url}/webhook", content=body, headers=headers).status_code
        if is_command and status == 202:
            with self.lock:
                self.commands.append(delivery)
        return (time.perf_counter() - started) * 1000, max(0.0, started - due) * 1000, status

    def run(self, rate: float, seconds: float, tag: str) -> dict[str, float]:
        total = int(rate * seconds)
        start = time.perf_counter() + 0.2
        with ThreadPoolExecutor(max_workers=12) as pool:
            results = list(pool.map(lambda i: self._one(i, start + i / rate, tag), range(total)))
        wall = time.perf_counter() - start
        latencies = sorted(r[0] for r in results)
        late = sum(1 for r in results if r[1] > 50)
        bad = sum(1 for r in results if r[2] != 202)
        return {
            "sent": total,
            "rate": total / wall,
            "p50": statistics.median(latencies),
            "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
            "late": late,
            "bad": bad,
        }


def _start_app(tmp: Path, github_url: str, private: str, port: int) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROCTOR_")}
    env.update(
        PROCTOR_APP_ID=str(APP_ID),
        PROCTOR_PRIVATE_KEY=private,
        PROCTOR_WEBHOOK_SECRET=SECRET,
        PROCTOR_GITHUB_API=github_url,
        PROCTOR_DATA_DIR=str(tmp / "app"),
        PYTHONPATH=str(ROOT),
    )
    log = (tmp / "app.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "github_app", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def _drain(url: str, timeout: float = 600) -> dict[str, int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        jobs: dict[str, int] = httpx.get(f"{url}/healthz", timeout=10).json()["jobs"]
        if not jobs.get("pending") and not jobs.get("running"):
            return jobs
        time.sleep(0.5)
    raise SystemExit("jobs were still unfinished after the load")


def _show(name: str, phase: str, result: dict[str, float]) -> None:
    print(
        f"{name:<12} {phase:<8} sent {int(result['sent']):>5}  {result['rate']:6.1f}/s  "
        f"p50 {result['p50']:6.2f} ms  p99 {result['p99']:6.2f} ms  late>50ms {int(result['late'])}  "
        f"non-202 {int(result['bad'])}"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--burst-rate", type=float, default=250)
    parser.add_argument("--burst-seconds", type=float, default=10)
    args = parser.parse_args()
    from tests.fakes.github_server import app_key_pair

    private, public = app_key_pair()
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="webhook-load-") as raw:
        tmp = Path(raw)
        here, there = multiprocessing.Pipe()
        github = multiprocessing.get_context("fork").Process(
            target=serve_github, args=(public, str(tmp), there), daemon=True
        )
        github.start()
        github_url = here.recv()
        anchor_port, app_port = _free_port(), _free_port()
        anchor = subprocess.Popen(
            [sys.executable, "-c", ANCHOR, str(anchor_port), str(tmp / "anchor.sqlite3"), SECRET]
        )
        app = _start_app(tmp, github_url, private, app_port)
        try:
            _wait_up(f"http://127.0.0.1:{anchor_port}", anchor)
            _wait_up(f"http://127.0.0.1:{app_port}", app)
            results = {}
            for name, port in (("anchor", anchor_port), ("proctor-app", app_port)):
                load = Load(f"http://127.0.0.1:{port}")
                results[name] = (
                    load.run(args.rate, args.seconds, "steady"),
                    load.run(args.burst_rate, args.burst_seconds, "burst"),
                )
                _show(name, "steady", results[name][0])
                _show(name, "burst", results[name][1])
            jobs = _drain(f"http://127.0.0.1:{app_port}")
            here.send("comments")
            bodies: list[str] = here.recv()
            sent = load.commands
            counts = {d: 0 for d in sent}
            for body in bodies:
                first = body.split("\n", 1)[0]
                delivery = first.removeprefix("<!-- proctor:reply:").removesuffix(" -->")
                if delivery in counts:
                    counts[delivery] += 1
            once = sum(1 for c in counts.values() if c == 1)
            print(f"exactly once: {once}/{len(sent)} command deliveries answered once; jobs {jobs}")
            if once != len(sent) or len(bodies) != len(sent):
                failures.append(
                    f"exactly-once: {once}/{len(sent)} answered once, {len(bodies)} replies in all"
                )
            steady, burst = results["proctor-app"]
            anchor_steady = results["anchor"][0]
            ratio = steady["p99"] / anchor_steady["p99"]
            print(
                f"ratio p99 proctor-app / anchor at {args.rate:.0f}/s: {ratio:.2f}x (target <= 3x, p99 <= 15 ms)"
            )
            if steady["p99"] > 15 or ratio > 3:
                failures.append(f"steady p99 {steady['p99']:.2f} ms, {ratio:.2f}x the anchor")
            if burst["p99"] > 50 or burst["rate"] < args.burst_rate * 0.98 or burst["bad"]:
                failures.append(
                    f"burst: {burst['rate']:.1f}/s, p99 {burst['p99']:.2f} ms, {int(burst['bad'])} non-202"
                )
        finally:
            for proc in (anchor, app):
                proc.terminate()
                proc.wait(timeout=30)
            here.send("stop")
            github.join(timeout=10)
    for failure in failures:
        print(f"MISSED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
