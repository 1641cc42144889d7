"""The feedback API end to end: real HTTP into the app, the task read from the default branch fetched from
the fake GitHub over git, keys issued by `proctor-app keys create`; the optimization job counted in the
app's outbox (it is run in test_prompt_job.py)."""

from __future__ import annotations

import json
import threading
from typing import Any
from unittest import mock

import httpx
import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from github_app.app import App
from github_app.feedback import PROMPT_EVENT
from github_app.settings import load_settings
from tests import servers
from tests.github_app import dashboard_state
from tests.github_app.conftest import REPO, Harness
from tests.github_app.feedback_setup import declare_task, issue_key, item, url

postgres_server, postgres_url = servers.postgres_server, servers.postgres_url


def prompt_jobs(h: Harness | App) -> list[dict[str, Any]]:
    app = h if isinstance(h, App) else h.app
    with app.store.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT payload FROM jobs WHERE event = :e ORDER BY id"), {"e": PROMPT_EVENT}
        )
        return [json.loads(row[0]) for row in rows]


def test_keys_are_required_and_bound_to_their_repository(harness: Harness) -> None:
    declare_task(harness)
    key = issue_key(harness)
    other = issue_key(harness, "octo/other")
    client = harness.client
    assert client.post(url(), json=item(1)).status_code == 401
    assert client.post(url(), json=item(1), headers={"X-API-Key": key + "x"}).status_code == 401
    refused = client.post(url(), json=item(1), headers={"X-API-Key": other})
    assert refused.status_code == 403 and "octo/other" in refused.json()["detail"]
    assert client.get(url(), headers={"X-API-Key": other}).status_code == 403
    assert client.post(url(), json=item(1), headers={"X-API-Key": key}).status_code == 201
    unknown = client.post(url("no_such_task"), json=item(1), headers={"X-API-Key": key})
    assert unknown.status_code == 404 and "no_such_task" in unknown.json()["detail"]
    with harness.app.store.engine.connect() as conn:
        stored = [row[0] for row in conn.execute(text("SELECT key_hash FROM feedback_api_keys"))]
    assert key not in stored and len(stored) == 2, "keys are stored hashed"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"output": None}, "output"),
        ({"output": ""}, "output"),
        ({"score": 1.5}, "score"),
        ({"inputs": {}}, "inputs"),
        ({"colour": "red"}, "colour"),
        ({"source": "x" * 201}, "source"),
    ],
)
def test_a_bad_body_is_a_422_naming_the_field(harness: Harness, change: dict[str, Any], field: str) -> None:
    declare_task(harness)
    key = issue_key(harness)
    body = {k: v for k, v in (item(1) | change).items() if v is not None}
    answer = harness.client.post(url(), json=body, headers={"X-API-Key": key})
    assert answer.status_code == 422
    assert any(field in err["loc"] for err in answer.json()["detail"]), answer.json()


def test_idempotency_key_and_pagination(harness: Harness) -> None:
    declare_task(harness)
    headers = {"X-API-Key": issue_key(harness)}
    client = harness.client
    first = client.post(url(), json=item(1), headers=headers | {"Idempotency-Key": "req-1"})
    again = client.post(url(), json=item(1), headers=headers | {"Idempotency-Key": "req-1"})
    assert first.status_code == 201 and again.status_code == 200 and again.json()["duplicate"] is True
    assert again.json()["item"]["id"] == first.json()["item"]["id"]
    clash = client.post(url(), json=item(2), headers=headers | {"Idempotency-Key": "req-1"})
    assert clash.status_code == 409
    for i in range(2, 8):
        assert client.post(url(), json=item(i), headers=headers).status_code == 201
    seen, cursor, pages = [], 0, 0
    while True:
        page = client.get(url(), params={"limit": 3, "cursor": cursor}, headers=headers).json()
        assert page["total"] == 7
        seen += [i["output"] for i in page["items"]]
        pages += 1
        if page["next_cursor"] is None:
            break
        cursor = page["next_cursor"]
    assert pages == 3 and seen == [item(i)["output"] for i in range(1, 8)]
    assert client.get(url(), params={"limit": 0}, headers=headers).status_code == 422


def test_49_posts_queue_nothing_the_50th_queues_one_optimization(harness: Harness) -> None:
    declare_task(harness, threshold=50)
    headers = {"X-API-Key": issue_key(harness)}
    for i in range(1, 50):
        answer = harness.client.post(url(), json=item(i), headers=headers)
        assert answer.status_code == 201 and answer.json()["optimization_job"] is None
    assert prompt_jobs(harness) == []
    fiftieth = harness.client.post(url(), json=item(50), headers=headers).json()
    assert isinstance(fiftieth["optimization_job"], int)
    jobs = prompt_jobs(harness)
    assert len(jobs) == 1 and jobs[0]["batch"] == 1 and jobs[0]["task"] == "summarize_ticket"
    assert jobs[0]["last_id"] == fiftieth["item"]["id"] and jobs[0]["repo"] == REPO
    for i in range(51, 100):
        assert harness.client.post(url(), json=item(i), headers=headers).json()["optimization_job"] is None
    assert len(prompt_jobs(harness)) == 1
    assert harness.client.post(url(), json=item(100), headers=headers).json()["optimization_job"]
    assert [j["batch"] for j in prompt_jobs(harness)] == [1, 2], "grown by the threshold again: one more"


def _race_across_the_threshold(h: Harness, app: App) -> None:
    """15 posts, then 12 at once across a threshold of 20: exactly one optimization job."""
    headers = {"X-API-Key": issue_key(h)}
    web = TestClient(app.web())
    for i in range(15):
        assert web.post(url(), json=item(i), headers=headers).status_code == 201
    statuses: list[int] = []
    queued: list[Any] = []
    with dashboard_state.serving(app.web()) as base:
        start = threading.Barrier(12)

        def post(i: int) -> None:
            with httpx.Client(base_url=base, timeout=60) as client:
                start.wait()
                answer = client.post(url(), json=item(100 + i), headers=headers)
                statuses.append(answer.status_code)
                queued.append(answer.json().get("optimization_job"))

        threads = [threading.Thread(target=post, args=(i,)) for i in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert statuses == [201] * 12
    assert len([q for q in queued if q]) == 1
    assert len(prompt_jobs(app)) == 1


def test_concurrent_posts_across_the_threshold_queue_exactly_one(harness: Harness) -> None:
    declare_task(harness, threshold=20)
    _race_across_the_threshold(harness, harness.app)


def test_concurrent_posts_on_postgresql_queue_exactly_one(harness: Harness, postgres_url: str) -> None:
    """PostgreSQL runs the posts' transactions side by side (SQLite takes them one at a time): the
    delivery id's unique constraint, not the order, keeps it to one."""
    declare_task(harness, threshold=20)
    app = App(load_settings(dict(harness.env) | {"PROCTOR_DB": postgres_url}, scrub=False))
    with mock.patch.dict("os.environ", {"PROCTOR_DB": postgres_url}):
        _race_across_the_threshold(harness, app)


def test_keys_create_refuses_a_bad_repository_name_in_one_line(
    harness: Harness, capsys: pytest.CaptureFixture[str]
) -> None:
    from github_app.__main__ import default_clone_url, keys_main

    with mock.patch.dict("os.environ", harness.env):
        assert keys_main(["create", "not-a-repo", "--installation", "7"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "OWNER/REPO" in err and "Traceback" not in err
    assert default_clone_url("https://api.github.com", "octo/demo") == "https://github.com/octo/demo.git"
    assert default_clone_url("https://ghe.example/api/v3", "octo/demo") == "https://ghe.example/octo/demo.git"
