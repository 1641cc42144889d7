"""The app end to end, in process: real PyGithub over HTTP to the loopback fake GitHub, real git over smart
HTTP, a real workspace measured by the real campaign path. Deliveries are real example payloads from
`@octokit/webhooks-examples` (vendored in tests/fakes/github_webhooks), mutated and signed here."""

from __future__ import annotations

import contextlib
import copy
import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from github_app.app import App
from github_app.settings import load_settings
from github_app.webhook import signature
from tests.core.campaign.conftest import Workspace, build_workspace, git
from tests.fakes.github_server import FakeGitHub, app_key_pair

SECRET = "test-webhook-secret"
APP_ID = 4242
REPO = "octo/demo"
WEBHOOKS = Path(__file__).parents[1] / "fakes" / "github_webhooks"


@pytest.fixture(scope="session")
def app_key() -> tuple[str, str]:
    return app_key_pair()


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WEBHOOKS / f"{name}.json").read_text())
    return copy.deepcopy(data)


class Project:
    """The workspace (a working repo) and its bare remote served by the fake over smart HTTP."""

    def __init__(self, ws: Workspace, remote: Path) -> None:
        self.ws, self.remote = ws, remote

    def publish(self) -> None:
        git(self.ws.root, "push", "--quiet", "--force", "--all", str(self.remote))

    def sha(self, ref: str) -> str:
        return git(self.ws.root, "rev-parse", ref).strip()


class Harness:
    def __init__(self, app: App, fake: FakeGitHub, project: Project, env: dict[str, str]) -> None:
        self.app, self.fake, self.project, self.env = app, fake, project, env
        self.client = TestClient(app.web())

    def deliver(self, event: str, payload: dict[str, Any], delivery: str | None = None) -> Any:
        body = json.dumps(payload).encode()
        headers = {
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "X-Hub-Signature-256": signature(body, SECRET),
            "Content-Type": "application/json",
        }
        return self.client.post("/webhook", content=body, headers=headers)

    def work(self) -> int:
        return self.app.queue.run_pending(self.app.runner().run)

    def pull_payload(
        self, action: str, number: int, head: str, *, base: str = "main", fork: str | None = None
    ) -> dict[str, Any]:
        payload = example("pull_request.synchronize" if action == "synchronize" else "pull_request.opened")
        payload["action"] = action
        payload["number"] = number
        payload["installation"] = {"id": 7, "node_id": "x"}
        repo = payload["repository"]
        repo["full_name"], repo["name"] = REPO, "demo"
        repo["clone_url"] = self.fake.clone_url(REPO)
        pull = payload["pull_request"]
        pull["number"], pull["state"] = number, "open"
        pull["head"]["sha"], pull["base"]["sha"] = self.project.sha(head), self.project.sha(base)
        pull["head"]["ref"], pull["base"]["ref"] = head, base
        pull["base"]["repo"] = repo
        pull["head"]["repo"] = copy.deepcopy(repo)
        if fork:
            pull["head"]["repo"]["full_name"] = fork
            pull["head"]["repo"]["clone_url"] = self.fake.clone_url(fork)
        self.fake.pulls[(REPO, number)] = copy.deepcopy(pull)
        return payload

    def comment_payload(self, number: int, body: str, association: str = "OWNER") -> dict[str, Any]:
        payload = example("issue_comment.created")
        payload["installation"] = {"id": 7, "node_id": "x"}
        payload["repository"]["full_name"] = REPO
        payload["repository"]["clone_url"] = self.fake.clone_url(REPO)
        issue = payload["issue"]
        issue["number"] = number
        issue["pull_request"] = {"url": f"{self.fake.url}/repos/{REPO}/pulls/{number}"}
        payload["comment"]["body"] = body
        payload["comment"]["author_association"] = association
        payload["comment"]["id"] = self.fake.next_id()
        return payload


@contextlib.contextmanager
def harness_for(
    tmp_path: Path, ws: Workspace, app_key: tuple[str, str] | None = None, **settings: str
) -> Iterator[Harness]:
    """The app, the fake GitHub and a bare remote holding `ws` (any workspace, e.g. another config)."""
    private, public = app_key or app_key_pair()
    remote = tmp_path / "git" / REPO
    remote = remote.with_name("demo.git")
    remote.parent.mkdir(parents=True)
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    project = Project(ws, remote)
    project.publish()
    with FakeGitHub(public, APP_ID, tmp_path / "git") as fake:
        env = {
            "PROCTOR_APP_ID": str(APP_ID),
            "PROCTOR_PRIVATE_KEY": private,
            "PROCTOR_WEBHOOK_SECRET": SECRET,
            "PROCTOR_GITHUB_API": fake.url,
            "PROCTOR_DATA_DIR": str(tmp_path / "data"),
            **settings,
        }
        app = App(load_settings(dict(env), scrub=False))
        yield Harness(app, fake, project, env)
    shutil.rmtree(tmp_path / "data", ignore_errors=True)


@pytest.fixture
def harness(tmp_path: Path, app_key: tuple[str, str]) -> Iterator[Harness]:
    with harness_for(tmp_path, build_workspace(tmp_path / "work"), app_key) as made:
        yield made
