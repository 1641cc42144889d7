"""Handlers dispatched through the router to a recording FakeGH; git reads a local repository directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from github_app.handlers import router
from github_app.router import JobContext
from github_app.store import NewJob, Store
from github_app.webhook import Event
from tests.core.campaign.conftest import Workspace, build_workspace, predict
from tests.github_app.conftest import REPO, example
from tests.github_app.fake_gh import FakeGH


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return build_workspace(tmp_path / "repo")


def pr_event(ws: Workspace, head: str, number: int = 3, delivery: str = "d") -> Event:
    from tests.core.campaign.conftest import git

    payload: dict[str, Any] = example("pull_request.opened")
    payload["repository"]["full_name"] = REPO
    payload["repository"]["clone_url"] = str(ws.root)
    pull = payload["pull_request"]
    pull["number"], pull["state"] = number, "open"
    pull["head"]["sha"] = git(ws.root, "rev-parse", head).strip()
    pull["base"]["sha"] = git(ws.root, "rev-parse", "main").strip()
    pull["head"]["repo"] = payload["repository"]
    return Event("pull_request", delivery, payload)


def run(event: Event, tmp_path: Path, gh: FakeGH, store: Store | None = None) -> Store:
    store = store or Store(f"sqlite:///{tmp_path / 'state.sqlite3'}")
    fields = router.job_for(event)
    assert isinstance(fields, NewJob)
    job_id = store.record_delivery(event.delivery_id, event.name, event.action or "", b"{}", fields)
    assert job_id
    router.dispatch(event, JobContext(gh, store, tmp_path / "data", job_id))
    return store


def test_opened_pr_queues_then_completes_a_check_and_comments(ws: Workspace, tmp_path: Path) -> None:
    ws.branch("better", {"solution/predict.py": predict("0.9")})
    gh = FakeGH()
    run(pr_event(ws, "better"), tmp_path, gh)
    kinds = [w[0] for w in gh.writes]
    assert gh.writes[0][:2] == ("create_check_run", REPO) and gh.writes[0][3] == "queued"
    assert kinds == ["create_check_run", "update_check_run", "update_check_run", "create_comment"]
    assert gh.patches[0]["status"] == "in_progress"
    assert gh.patches[-1]["conclusion"] == "success"
    assert gh.patches[-1]["title"].startswith("score 0.9000 (+0.4000 ± ")


def test_more_than_50_annotations_go_in_batches(ws: Workspace, tmp_path: Path) -> None:
    planted = {f"kapso_evaluation/extra_{i:02d}.py": "x = 1\n" for i in range(73)}
    ws.branch("planted", planted)
    gh = FakeGH()
    run(pr_event(ws, "planted"), tmp_path, gh)
    final = [p for p in gh.patches if p["status"] != "in_progress"]
    assert [len(p["annotations"]) for p in final] == [50, 23]
    assert final[0]["conclusion"] is None and final[-1]["conclusion"] == "failure"
    assert (
        final[-1]["title"].startswith("rejected: IN005 kapso_evaluation/extra_00.py")
        and "+72 more" in final[-1]["title"]
    )


def test_candidate_text_is_escaped_and_cannot_mention(ws: Workspace, tmp_path: Path) -> None:
    ws.branch("loud", {"solution/predict.py": predict("@octocat #12 <b>x</b>")})
    gh = FakeGH()
    run(pr_event(ws, "loud"), tmp_path, gh)
    title = gh.patches[-1]["title"]
    assert title.startswith("failed: ") and "@octocat" not in title and "#12" not in title
    (body,) = gh.comments.values()
    outside_fences = body.split("```")[0::2]
    assert all("<b>" not in part and "@octocat" not in part for part in outside_fences)


def test_same_work_is_never_done_twice(ws: Workspace, tmp_path: Path) -> None:
    ws.branch("twice", {"solution/predict.py": predict("0.6")})
    gh = FakeGH()
    store = run(pr_event(ws, "twice", delivery="one"), tmp_path, gh)
    writes = len(gh.writes)
    run(pr_event(ws, "twice", delivery="two"), tmp_path, gh, store)
    assert len(gh.writes) == writes


def test_comment_from_a_stranger_gets_a_polite_reply(tmp_path: Path) -> None:
    payload: dict[str, Any] = example("issue_comment.created")
    payload["issue"]["pull_request"] = {"url": "x"}
    payload["comment"]["body"] = "/proctor run please"
    payload["comment"]["author_association"] = "NONE"
    gh = FakeGH()
    run(Event("issue_comment", "c-1", payload), tmp_path, gh)
    assert [w[0] for w in gh.writes] == ["add_reaction", "create_comment"]  # 😕, then the reply only
    assert gh.reactions == [(payload["comment"]["id"], "confused")]
    assert "nothing was run" in next(iter(gh.comments.values()))


def test_comments_that_are_not_commands_make_no_job() -> None:
    payload: dict[str, Any] = example("issue_comment.created")
    payload["comment"]["body"] = "/proctor run"  # on an issue, not a pull request
    assert router.job_for(Event("issue_comment", "c", payload)) is None
    payload["issue"]["pull_request"] = {"url": "x"}
    payload["comment"]["body"] = "looks good to me"
    assert router.job_for(Event("issue_comment", "c", payload)) is None


def test_the_last_attempt_completes_the_check_instead_of_leaving_it_queued(
    ws: Workspace, tmp_path: Path
) -> None:
    from github_app.queue import RETRY_DELAYS_S

    event = pr_event(ws, "main", number=4)
    event.payload["repository"]["clone_url"] = str(tmp_path / "no-such-repository")
    event.payload["pull_request"]["head"]["repo"]["clone_url"] = str(tmp_path / "no-such-repository")
    store = Store(f"sqlite:///{tmp_path / 'state.sqlite3'}")
    job_id = store.record_delivery("d", "pull_request", "opened", b"{}", router.job_for(event))
    assert job_id
    gh = FakeGH()
    with pytest.raises(Exception, match="does not have commit"):
        router.dispatch(event, JobContext(gh, store, tmp_path / "data", job_id, attempt=1))
    router.dispatch(event, JobContext(gh, store, tmp_path / "data", job_id, attempt=len(RETRY_DELAYS_S) + 1))
    final = gh.patches[-1]
    assert final["conclusion"] == "neutral" and final["title"].startswith("not measured: GitError")
    assert [w[0] for w in gh.writes].count("create_check_run") == 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p["pull_request"]["head"].pop("sha"),
        lambda p: p["pull_request"]["base"].update(sha="not-a-sha"),
        lambda p: p.pop("repository"),
        lambda p: p["pull_request"].update(head=None),
    ],
)
def test_a_pull_request_payload_missing_what_a_job_needs_makes_no_job(damage: Any) -> None:
    payload: dict[str, Any] = example("pull_request.opened")
    assert router.job_for(Event("pull_request", "d", payload)) is not None
    damage(payload)
    assert router.job_for(Event("pull_request", "d", payload)) is None


@pytest.mark.parametrize(("mode", "comments", "edits"), [("new", 2, 0), ("off", 0, 0), ("update", 1, 1)])
def test_comment_modes(tmp_path: Path, mode: str, comments: int, edits: int) -> None:
    from tests.core.campaign.conftest import CONFIG

    ws = build_workspace(tmp_path / "repo", config=CONFIG + f'\n[github]\ncomment = "{mode}"\n')
    ws.branch("one", {"solution/predict.py": predict("0.6")})
    ws.branch("two", {"solution/predict.py": predict("0.7")})
    gh = FakeGH()
    store = run(pr_event(ws, "one", delivery="a"), tmp_path, gh)
    run(pr_event(ws, "two", delivery="b"), tmp_path, gh, store)
    assert len(gh.comments) == comments
    assert sum(1 for w in gh.writes if w[0] == "update_comment") == edits
