"""Fetching a PR's commits over smart HTTP with the token in memory: by id, by refs, from a fork."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import GitError
from github_app.fetch import _fetch, fetch_commits, mirror_dir
from tests.core.campaign.conftest import build_workspace, git, predict
from tests.fakes.github_server import FakeGitHub


@pytest.fixture
def fake(tmp_path: Path, app_key: tuple[str, str]) -> FakeGitHub:
    ws = build_workspace(tmp_path / "work")
    ws.branch("feature", {"solution/predict.py": predict("0.7")})
    root = tmp_path / "git"
    for name in ("octo/demo.git", "stranger/demo.git"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        git(tmp_path, "init", "--quiet", "--bare", str(root / name))
    git(ws.root, "push", "--quiet", str(root / "octo/demo.git"), "main")
    git(ws.root, "push", "--quiet", str(root / "stranger/demo.git"), "feature")
    return FakeGitHub(app_key[1], 1, root)


def shas(tmp_path: Path) -> tuple[str, str]:
    repo = tmp_path / "work"
    return git(repo, "rev-parse", "main").strip(), git(repo, "rev-parse", "feature").strip()


def test_a_fork_head_is_fetched_from_the_head_repository(fake: FakeGitHub, tmp_path: Path) -> None:
    base, head = shas(tmp_path)
    with fake:
        token = fake.issue_token()
        mirror = fetch_commits(
            tmp_path / "data",
            "octo/demo",
            fake.clone_url("octo/demo"),
            token,
            [base, head],
            pull=3,
            head_url=fake.clone_url("stranger/demo"),
        )
    assert git(mirror, "cat-file", "-t", head).strip() == "commit"
    config = (mirror / "config").read_text()
    assert token not in config and "x-access-token" not in config
    assert all(token not in r.path for r in fake.requests)


def test_a_server_without_fetch_by_id_is_read_by_refs(fake: FakeGitHub, tmp_path: Path) -> None:
    base, _head = shas(tmp_path)
    work = tmp_path / "work"
    (work / "notes.txt").write_text("later\n")
    git(work, "add", "notes.txt")
    git(work, "commit", "--quiet", "-m", "later")  # `base` is no longer a branch tip: unadvertised
    git(work, "push", "--quiet", str(tmp_path / "git" / "octo/demo.git"), "main")
    fake.git_protocol_v2 = False
    with fake:
        token = fake.issue_token()
        mirror = mirror_dir(tmp_path / "data", "octo/demo")
        mirror.mkdir(parents=True)
        git(mirror, "init", "--quiet", "--bare")
        with pytest.raises(GitError):  # by id alone this server refuses: the fallback is needed
            _fetch(mirror, fake.clone_url("octo/demo"), token, [base])
        fetch_commits(tmp_path / "data", "octo/demo", fake.clone_url("octo/demo"), token, [base], pull=3)
    assert git(mirror, "cat-file", "-t", base).strip() == "commit"


def test_a_wrong_token_fails_without_showing_it(fake: FakeGitHub, tmp_path: Path) -> None:
    base, _head = shas(tmp_path)
    with fake, pytest.raises(GitError) as caught:
        fetch_commits(tmp_path / "data", "octo/demo", fake.clone_url("octo/demo"), "ghs_wrong", [base])
    assert "ghs_wrong" not in str(caught.value)
    assert {r.status for r in fake.requests} == {401}
