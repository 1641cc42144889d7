"""`github_app.delivery` against the loopback fake GitHub: real PyGithub, real git pushes over smart HTTP.

Each rule of the delivery (README "Campaigns on a pull request"): opened once, updated not duplicated,
a person's push kept, a closed pull request not reopened for the same commit, workflow changes refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from github_app.delivery import DeliveryRequest, deliver
from github_app.gh import AppClient, PyGithubPort
from github_app.store import Store
from tests.core.campaign.conftest import Workspace, build_workspace, git, predict
from tests.fakes.github_server import FakeGitHub
from tests.github_app.conftest import APP_ID, REPO

BRANCH = "proctor/delivered/pr-5"


@dataclass
class Setup:
    fake: FakeGitHub
    gh: PyGithubPort
    store: Store
    ws: Workspace
    remote: Path

    def request(self, commit: str, **changes: str) -> DeliveryRequest:
        fields = {
            "repo": REPO,
            "remote_url": self.fake.clone_url(REPO),
            "git_dir": self.ws.root,
            "commit": commit,
            "branch": BRANCH,
            "base": "feature",
            "title": "Proctor: the campaign's winner",
            "body": "score 0.8 (+0.3 vs the PR head)",
            "since": self.ws_sha("feature"),
        }
        fields.update(changes)
        return DeliveryRequest(**fields)  # type: ignore[arg-type]

    def ws_sha(self, ref: str) -> str:
        return git(self.ws.root, "rev-parse", ref).strip()

    def publish(self) -> None:
        git(self.ws.root, "push", "--quiet", "--force", str(self.remote), "main", "feature")


@pytest.fixture
def setup(tmp_path: Path, app_key: tuple[str, str]) -> Iterator[Setup]:
    private, public = app_key
    ws = build_workspace(tmp_path / "work")
    ws.branch("feature", {"solution/predict.py": predict("0.5", before="# feature\n")})
    remote = tmp_path / "git" / "octo" / "demo.git"
    remote.parent.mkdir(parents=True)
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    with FakeGitHub(public, APP_ID, tmp_path / "git") as fake:
        gh = AppClient(APP_ID, private, fake.url).port(7)
        done = Setup(fake, gh, Store(f"sqlite:///{tmp_path / 'app.db'}"), ws, remote)
        done.publish()
        yield done


def _candidate(setup: Setup, name: str, value: str, extra: dict[str, str] | None = None) -> str:
    git(setup.ws.root, "checkout", "--quiet", "-b", name, "feature")
    setup.ws.write("solution/predict.py", predict(value))
    for rel, content in (extra or {}).items():
        setup.ws.write(rel, content)
    sha = setup.ws.commit_all(f"candidate {name}")
    git(setup.ws.root, "checkout", "--quiet", "main")
    return sha


def test_opened_once_then_updated_never_duplicated(setup: Setup) -> None:
    first = _candidate(setup, "c1", "0.8")
    done = deliver(setup.gh, setup.store, setup.request(first))
    assert done.outcome == "opened" and done.pull_number is not None
    assert setup.fake.branch_sha(REPO, BRANCH) == first
    (pull,) = setup.fake.pulls_from(REPO, BRANCH)
    assert pull["base"]["ref"] == "feature" and pull["head"]["sha"] == first
    assert "score 0.8" in pull["body"] and first in pull["body"]

    again = deliver(setup.gh, setup.store, setup.request(first))
    assert again.outcome == "unchanged" and again.pull_number == done.pull_number

    second = _candidate(setup, "c2", "0.9")
    updated = deliver(setup.gh, setup.store, setup.request(second, body="score 0.9"))
    assert updated.outcome == "updated" and updated.pull_number == done.pull_number
    assert setup.fake.branch_sha(REPO, BRANCH) == second  # force-pushed over the app's own push
    (pull,) = setup.fake.pulls_from(REPO, BRANCH)
    assert pull["head"]["sha"] == second and "score 0.9" in pull["body"]


def test_a_branch_a_person_pushed_to_is_not_overwritten(setup: Setup) -> None:
    first = _candidate(setup, "c1", "0.8")
    deliver(setup.gh, setup.store, setup.request(first))
    theirs = _candidate(setup, "person", "0.85")
    git(setup.ws.root, "push", "--quiet", "--force", str(setup.remote), f"{theirs}:refs/heads/{BRANCH}")
    second = _candidate(setup, "c2", "0.9")
    kept = deliver(setup.gh, setup.store, setup.request(second))
    assert kept.outcome == "person_pushed" and not kept.delivered
    assert "does not overwrite" in kept.message
    assert setup.fake.branch_sha(REPO, BRANCH) == theirs
    assert len(setup.fake.pulls_from(REPO, BRANCH)) == 1


def test_a_closed_pull_request_is_not_reopened_for_the_same_commit(setup: Setup) -> None:
    first = _candidate(setup, "c1", "0.8")
    opened = deliver(setup.gh, setup.store, setup.request(first))
    assert opened.pull_number is not None
    setup.fake.close_pull(REPO, opened.pull_number)
    declined = deliver(setup.gh, setup.store, setup.request(first))
    assert declined.outcome == "declined" and declined.pull_number == opened.pull_number
    assert [p["state"] for p in setup.fake.pulls_from(REPO, BRANCH)] == ["closed"]

    second = _candidate(setup, "c2", "0.9")
    reopened = deliver(setup.gh, setup.store, setup.request(second))
    assert reopened.outcome == "opened" and reopened.pull_number != opened.pull_number
    assert [p["state"] for p in setup.fake.pulls_from(REPO, BRANCH)] == ["closed", "open"]


def test_a_winner_that_changes_workflows_is_not_delivered(setup: Setup) -> None:
    sneaky = _candidate(setup, "c1", "0.9", {".github/workflows/ci.yml": "on: push\n"})
    refused = deliver(setup.gh, setup.store, setup.request(sneaky))
    assert refused.outcome == "workflows" and ".github/workflows/" in refused.message
    assert setup.fake.branch_sha(REPO, BRANCH) is None
    assert setup.fake.pulls_from(REPO, BRANCH) == []


def test_the_token_never_reaches_a_text_sent_to_github(setup: Setup) -> None:
    first = _candidate(setup, "c1", "0.8")
    deliver(setup.gh, setup.store, setup.request(first))
    second = _candidate(setup, "c2", "0.9")
    deliver(setup.gh, setup.store, setup.request(second))
    tokens = list(setup.fake.tokens)
    assert tokens
    for recorded in setup.fake.requests:
        for token in tokens:
            assert token.encode() not in recorded.body
            assert token not in recorded.path
    assert not setup.fake.violations
