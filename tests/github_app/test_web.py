"""`POST /webhook` statuses as GitHub (or an attacker) meets them, and `proctor-app` start-up errors."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from github_app.settings import SettingsError, load_settings
from github_app.webhook import MAX_BODY_BYTES, signature
from tests.github_app.conftest import SECRET, Harness, example


def post(harness: Harness, body: bytes, **headers: str) -> int:
    return harness.client.post("/webhook", content=body, headers=headers).status_code


def signed(body: bytes, event: str = "ping", delivery: str = "d-1") -> dict[str, str]:
    return {
        "X-Hub-Signature-256": signature(body, SECRET),
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
    }


def test_statuses(harness: Harness) -> None:
    ping = json.dumps(example("ping")).encode()
    assert post(harness, ping, **{"X-GitHub-Event": "ping", "X-GitHub-Delivery": "a"}) == 401
    assert post(harness, ping, **{**signed(ping), "X-Hub-Signature-256": signature(ping, "wrong")}) == 401
    sha1_only = {"X-Hub-Signature": "sha1=" + "0" * 40, "X-GitHub-Event": "ping", "X-GitHub-Delivery": "b"}
    assert post(harness, ping, **sha1_only) == 401
    assert post(harness, b"{not json", **signed(b"{not json")) == 400
    assert post(harness, ping, **signed(ping, delivery="p-1")) == 202
    assert post(harness, ping, **signed(ping, delivery="p-1")) == 200
    assert harness.work() == 0  # a ping has no handler: recorded, answered, ignored
    assert harness.client.get("/healthz").json()["status"] == "ok"


def test_oversized_bodies_are_413_by_header_and_by_stream(harness: Harness) -> None:
    big = b" " * (MAX_BODY_BYTES + 1)
    assert post(harness, b"{}", **{**signed(b"{}"), "Content-Length": str(MAX_BODY_BYTES + 1)}) == 413

    def chunks() -> object:
        for start in range(0, len(big), 1 << 20):
            yield big[start : start + (1 << 20)]

    answer = harness.client.post("/webhook", content=chunks(), headers=signed(big))  # chunked: no length
    assert answer.status_code == 413


def test_random_and_truncated_bodies_never_give_a_5xx(harness: Harness) -> None:
    rng = random.Random(13)
    payload = json.dumps(example("pull_request.opened")).encode()
    bodies = [payload[: rng.randrange(len(payload))] for _ in range(20)]
    bodies += [bytes(rng.randrange(256) for _ in range(rng.randrange(200))) for _ in range(20)]
    bodies += [b"null", b"{}", b'{"action": 5}', b'{"pull_request": []}', b'{"pull_request": {"head": 1}}']
    for index, body in enumerate(bodies):
        for event in ("pull_request", "issue_comment", "check_run"):
            status = post(harness, body, **signed(body, event, f"r-{index}-{event}"))
            assert status in (202, 400), (body[:40], status)
    harness.work()
    assert harness.client.get("/healthz").status_code == 200


def test_proctor_app_refuses_to_start_naming_the_setting(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROCTOR_")}
    env.update(PROCTOR_WEBHOOK_SECRET="s", PROCTOR_APP_ID="abc", PROCTOR_DATA_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "github_app", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "proctor-app: PROCTOR_APP_ID: expected a positive integer, found 'abc'"


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({}, "PROCTOR_WEBHOOK_SECRET"),
        ({"PROCTOR_WEBHOOK_SECRET": "s"}, "PROCTOR_APP_ID"),
        ({"PROCTOR_WEBHOOK_SECRET": "s", "PROCTOR_APP_ID": "1"}, "PROCTOR_PRIVATE_KEY"),
        (
            {"PROCTOR_WEBHOOK_SECRET": "s", "PROCTOR_APP_ID": "1", "PROCTOR_PRIVATE_KEY": "nope"},
            "PROCTOR_PRIVATE_KEY",
        ),
        (
            {
                "PROCTOR_WEBHOOK_SECRET": "s",
                "PROCTOR_APP_ID": "1",
                "PROCTOR_PRIVATE_KEY_PATH": "/no/such/key.pem",
            },
            "PROCTOR_PRIVATE_KEY_PATH",
        ),
        ({"PROCTOR_GITHUB_API": "ftp://x"}, "PROCTOR_GITHUB_API"),
        ({"PROCTOR_QUEUE": "amqp://x"}, "PROCTOR_QUEUE"),
        ({"PROCTOR_DB": "mysql://x"}, "PROCTOR_DB"),
    ],
)
def test_each_bad_setting_is_named(
    env: dict[str, str], variable: str, tmp_path: Path, app_key: tuple[str, str]
) -> None:
    full = {"PROCTOR_DATA_DIR": str(tmp_path)}
    if variable not in (
        "PROCTOR_WEBHOOK_SECRET",
        "PROCTOR_APP_ID",
        "PROCTOR_PRIVATE_KEY",
        "PROCTOR_PRIVATE_KEY_PATH",
    ):
        full.update(PROCTOR_WEBHOOK_SECRET="s", PROCTOR_APP_ID="1", PROCTOR_PRIVATE_KEY=app_key[0])
    full.update(env)
    with pytest.raises(SettingsError) as caught:
        load_settings(full, scrub=False)
    assert caught.value.variable == variable
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("PROCTOR_DB", "mysql://app:hunter2@db.internal/app"),
        ("PROCTOR_QUEUE", "amqp://app:hunter2@mq.internal/"),
        ("PROCTOR_GITHUB_API", "ftp://app:hunter2@ghe.internal/"),
    ],
)
def test_a_refused_url_setting_is_shown_without_its_password(
    variable: str, value: str, tmp_path: Path, app_key: tuple[str, str]
) -> None:
    env = {"PROCTOR_WEBHOOK_SECRET": "s", "PROCTOR_APP_ID": "1", "PROCTOR_PRIVATE_KEY": app_key[0]}
    env.update(PROCTOR_DATA_DIR=str(tmp_path), **{variable: value})
    with pytest.raises(SettingsError) as caught:
        load_settings(env, scrub=False)
    assert caught.value.variable == variable
    assert "hunter2" not in str(caught.value) and "***@" in str(caught.value)


def test_secrets_leave_the_environment_once_read(tmp_path: Path, app_key: tuple[str, str]) -> None:
    env = {
        "PROCTOR_WEBHOOK_SECRET": "s",
        "PROCTOR_APP_ID": "1",
        "PROCTOR_PRIVATE_KEY": app_key[0],
        "PROCTOR_DATA_DIR": str(tmp_path),
    }
    settings = load_settings(env)
    assert settings.webhook_secret == "s" and "PRIVATE KEY" in settings.private_key
    assert "PROCTOR_PRIVATE_KEY" not in env and "PROCTOR_WEBHOOK_SECRET" not in env
    assert "PRIVATE KEY" not in repr(settings)


def test_the_app_process_is_not_dumpable() -> None:
    code = (
        "import ctypes; from github_app.__main__ import protect_process; protect_process(); "
        "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))"  # PR_GET_DUMPABLE
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "0"


def test_the_status_page_needs_the_dashboard_token_when_one_is_set(harness: Harness) -> None:
    from starlette.testclient import TestClient

    from github_app.handlers import router
    from github_app.web import create_app

    app = create_app(SECRET, harness.app.store, harness.app.queue, router, dashboard_token="letmein")
    client = TestClient(app)
    assert client.get("/").status_code == 401
    assert client.get("/", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/", headers={"Authorization": "Bearer letmein"}).status_code == 200
    client.cookies.set("proctor_dashboard", "letmein")
    assert client.get("/").status_code == 200
    assert client.get("/healthz").status_code == 200  # health checks need no token
