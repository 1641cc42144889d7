"""App state for the dashboard tests: PR checks and campaigns with real report.html and scoreboard.json files
(written by the campaign engine's own `write_outputs`), and the app served over real HTTP on loopback."""

from __future__ import annotations

import dataclasses
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from core.campaign.engine import write_outputs
from core.campaign.model import CampaignResult
from github_app.handlers import router
from github_app.queue import JobQueue
from github_app.store import Store
from github_app.web import create_app
from tests.core.report import factory

SECRET = "dashboard-test-secret"
TOKEN = "dash-token-7f3a"
HOSTILE_TITLE = f"auc 0.5 {factory.HOSTILE}"


@dataclasses.dataclass(frozen=True)
class Seeded:
    store: Store
    data_dir: Path
    results: dict[str, CampaignResult]


def _campaign(
    store: Store, data_dir: Path, result: CampaignResult, repo: str, pr: int, cid: str
) -> CampaignResult:
    """Recorded as app2's campaign job records it: the report's path, and the schema-1 JSON in `result`
    for all but c-demo, whose scores come from the scoreboard.json beside its (relative) report path."""
    folder = data_dir / "campaigns" / repo.replace("/", "+") / cid
    moved = dataclasses.replace(result, campaign_id=cid, campaign_dir=folder)
    write_outputs(moved)
    demo = cid == "c-demo"
    store.save_campaign(
        cid,
        repo=repo,
        pr_number=pr,
        job_id=len(store.campaigns()) + 1,
        head_sha="e" * 40,
        status="completed",
        report_path=str(moved.report_path.relative_to(data_dir) if demo else moved.report_path),
        result="" if demo else json.dumps(moved.to_json()),
    )
    return moved


def seed(tmp: Path) -> Seeded:
    """Two repositories: three PR checks (one PR checked twice), three campaigns with reports, one without."""
    data_dir = tmp / "data"
    data_dir.mkdir(parents=True)
    store = Store(f"sqlite:///{data_dir / 'app.sqlite3'}")
    checks = [
        ("octo/demo", 7, "a1", "failure", "auc 0.7000 (-0.1582 vs base)"),
        ("octo/demo", 7, "a2", "success", "auc 0.8805 (+0.0223 ± 0.0040 vs base)"),
        ("octo/demo", 9, "c3", "failure", "rejected: IN001 kapso_evaluation/evaluate.py changed"),
        ("acme/tool", 2, "d4", "neutral", HOSTILE_TITLE),
    ]
    for repo, pr, head, conclusion, title in checks:
        store.save_check_run(
            f"{repo}#{pr}@{head}",
            repo,
            pr,
            head * 20,
            "b" * 40,
            status="completed",
            conclusion=conclusion,
            result=json.dumps({"conclusion": conclusion, "title": title, "summary": ""}),
        )
    results = {
        "c-demo": _campaign(store, data_dir, factory.demo_like(), "octo/demo", 7, "c-demo"),
        "c-forty": _campaign(store, data_dir, factory.many(40), "octo/demo", 9, "c-forty"),
        "c-hostile": _campaign(store, data_dir, factory.hostile(), "acme/tool", 2, "c-hostile"),
    }
    store.save_campaign(
        "c-running", repo="acme/tool", pr_number=2, job_id=99, head_sha="f" * 40, status="running"
    )
    return Seeded(store, data_dir, results)


def web(seeded: Seeded, token: str = TOKEN) -> FastAPI:
    queue = JobQueue("sqlite", seeded.data_dir / "queue.sqlite3")
    return create_app(SECRET, seeded.store, queue, router, token, seeded.data_dir)


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """The app on a free loopback port under uvicorn (as `proctor-app` runs it); yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
