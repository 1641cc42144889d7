"""`/proctor campaign` and `/proctor deliver` end to end: signed webhooks → the worker → the real campaign
engine over the app's mirror → PyGithub against the fake GitHub, and delivery branches really pushed over
git smart HTTP (README "Campaigns on a pull request")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from github_app import campaign_job
from tests.core.campaign.conftest import EVALUATE, git, predict
from tests.github_app.conftest import REPO, Harness, example

BRANCH = "proctor/delivered/pr-5"


@pytest.fixture(autouse=True)
def _every_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(campaign_job, "PROGRESS_INTERVAL_S", 0.0)


def _feature(harness: Harness) -> str:
    """PR #5 from `feature` (score 0.5) with candidates branched from it: better, worse, tampering."""
    ws = harness.project.ws
    ws.branch("feature", {"solution/predict.py": predict("0.5", before="# feature\n")})
    _candidate(harness, "candidate/better", {"solution/predict.py": predict("0.8")})
    _candidate(harness, "candidate/worse", {"solution/predict.py": predict("0.3")})
    _candidate(
        harness,
        "candidate/tamper",
        {"kapso_evaluation/evaluate.py": EVALUATE.replace('print(f"score: {text}")', 'print("score: 1.0")')},
    )
    harness.project.publish()
    harness.pull_payload("opened", 5, "feature")
    return harness.project.sha("feature")


def _candidate(harness: Harness, name: str, files: dict[str, str]) -> str:
    ws = harness.project.ws
    git(ws.root, "checkout", "--quiet", "-B", name, "feature")
    for rel, content in files.items():
        ws.write(rel, content)
    sha = ws.commit_all(f"candidate {name}")
    git(ws.root, "checkout", "--quiet", "main")
    return sha


def _command(harness: Harness, body: str, association: str = "OWNER") -> dict[str, Any]:
    payload = harness.comment_payload(5, body, association=association)
    harness.deliver("issue_comment", payload)
    harness.work()
    return payload


def _campaign_runs(harness: Harness, head: str) -> list[Any]:
    return [r for r in harness.fake.runs_for(head) if r.name == "Proctor campaign"]


def _comment(harness: Harness) -> str:
    mine = [c for c in harness.fake.comments_on(REPO, 5) if "<!-- proctor:pr -->" in c["body"]]
    assert len(mine) == 1, "the app keeps one comment per PR"
    return str(mine[0]["body"])


def test_campaign_reports_progress_and_scoreboard_and_delivers_the_winner(harness: Harness) -> None:
    head = _feature(harness)
    payload = _command(harness, "/proctor campaign")
    comment_id = payload["comment"]["id"]
    assert [c for (_r, i, c) in harness.fake.reactions if i == comment_id] == ["eyes", "rocket"]

    (run,) = _campaign_runs(harness, head)
    assert run.conclusion == "success"
    assert run.output["title"].startswith("winner candidate/better: score 0.8000 (+0.3000")
    assert run.history.count("in_progress") >= 3  # created, then one update per finished candidate
    summary = run.output["summary"]
    assert "PR head (baseline)" in summary and "Rejected candidates (1)" in summary and "IN001" in summary

    body = _comment(harness)
    assert "### Proctor campaign" in body and "candidate/tamper" in body and "IN001" in body
    assert "Delivered" in body

    better = harness.project.sha("candidate/better")
    assert harness.fake.branch_sha(REPO, BRANCH) == better
    (pull,) = harness.fake.pulls_from(REPO, BRANCH)
    assert pull["state"] == "open" and pull["base"]["ref"] == "feature" and pull["head"]["sha"] == better
    assert "1 rejected" in pull["body"] and "Evaluator `" in pull["body"] and "0.8000" in pull["body"]
    assert pull["title"] == "Proctor: score 0.8000 (+0.3000 ± 0.0000 vs #5) from candidate/better"

    (campaign,) = harness.app.store.campaigns(REPO, 5)
    report = Path(campaign.report_path)
    assert campaign.status == "completed" and report.is_file()
    assert "<svg" in report.read_text() and "candidate/better" in report.read_text()
    assert json.loads(campaign.result)["winner"]["commit"] == better
    served = harness.client.get(f"/campaigns/{campaign.campaign_id}")  # the dashboard serves the report
    assert served.status_code == 200 and "candidate/better" in served.text
    assert not harness.fake.violations


def test_a_second_campaign_updates_the_same_delivery_pr(harness: Harness) -> None:
    head = _feature(harness)
    _command(harness, "/proctor campaign")
    (first,) = harness.fake.pulls_from(REPO, BRANCH)
    best = _candidate(harness, "candidate/best", {"solution/predict.py": predict("0.9")})
    harness.project.publish()
    _command(harness, "/proctor campaign")
    assert len(_campaign_runs(harness, head)) == 2
    (pull,) = harness.fake.pulls_from(REPO, BRANCH)
    assert pull["number"] == first["number"] and pull["head"]["sha"] == best
    assert harness.fake.branch_sha(REPO, BRANCH) == best
    assert "0.9000" in pull["body"]
    assert "Updated" in _comment(harness)


def test_a_person_s_push_to_the_delivery_branch_is_kept(harness: Harness) -> None:
    _feature(harness)
    _command(harness, "/proctor campaign")
    theirs = _candidate(harness, "tweak", {"solution/predict.py": predict("0.81")})
    git(
        harness.project.ws.root,
        "push",
        "--quiet",
        "--force",
        str(harness.project.remote),
        f"{theirs}:refs/heads/{BRANCH}",
    )
    _candidate(harness, "candidate/best", {"solution/predict.py": predict("0.9")})
    harness.project.publish()
    _command(harness, "/proctor campaign")
    assert harness.fake.branch_sha(REPO, BRANCH) == theirs
    assert len(harness.fake.pulls_from(REPO, BRANCH)) == 1
    assert "does not overwrite a branch a person pushed to" in _comment(harness)


def test_a_closed_delivery_pr_is_not_reopened_by_deliver(harness: Harness) -> None:
    _feature(harness)
    _command(harness, "/proctor campaign")
    (pull,) = harness.fake.pulls_from(REPO, BRANCH)
    harness.fake.close_pull(REPO, pull["number"])
    payload = _command(harness, "/proctor deliver")
    assert [p["state"] for p in harness.fake.pulls_from(REPO, BRANCH)] == ["closed"]
    assert "closed without merging" in _comment(harness)
    reactions = [c for (_r, i, c) in harness.fake.reactions if i == payload["comment"]["id"]]
    assert reactions == ["eyes", "confused"]


def test_a_winner_that_changes_workflows_is_not_delivered(harness: Harness) -> None:
    harness.project.ws.branch("feature", {"solution/predict.py": predict("0.5", before="# feature\n")})
    _candidate(
        harness,
        "candidate/ci",
        {"solution/predict.py": predict("0.9"), ".github/workflows/ci.yml": "on: push\njobs: {}\n"},
    )
    harness.project.publish()
    harness.pull_payload("opened", 5, "feature")
    _command(harness, "/proctor campaign")
    assert harness.fake.branch_sha(REPO, BRANCH) is None
    assert harness.fake.pulls_from(REPO, BRANCH) == []
    assert "changes `.github/workflows/`" in _comment(harness)


def test_nothing_is_delivered_without_a_candidate_that_beats_the_head(harness: Harness) -> None:
    harness.project.ws.branch("feature", {"solution/predict.py": predict("0.5", before="# feature\n")})
    _candidate(harness, "candidate/worse", {"solution/predict.py": predict("0.3")})
    harness.project.publish()
    head = harness.project.sha("feature")
    harness.pull_payload("opened", 5, "feature")
    _command(harness, "/proctor campaign")
    (run,) = _campaign_runs(harness, head)
    assert run.conclusion == "neutral" and run.output["title"].startswith("no candidate beats the PR head")
    assert harness.fake.pulls_from(REPO, BRANCH) == []
    assert "Nothing delivered" in _comment(harness)


def test_an_unauthorised_commenter_gets_a_reply_and_nothing_runs(harness: Harness) -> None:
    head = _feature(harness)
    payload = _command(harness, "/proctor campaign", association="NONE")
    assert _campaign_runs(harness, head) == []
    assert harness.fake.pulls_from(REPO, BRANCH) == []
    (reply,) = harness.fake.comments_on(REPO, 5)
    assert "owners, members and collaborators" in reply["body"]
    assert [c for (_r, i, c) in harness.fake.reactions if i == payload["comment"]["id"]] == ["confused"]
    assert harness.app.store.campaigns(REPO, 5) == []


def test_an_edited_comment_is_no_command(harness: Harness) -> None:
    head = _feature(harness)
    payload = harness.comment_payload(5, "/proctor campaign")
    payload["action"] = "edited"
    harness.deliver("issue_comment", payload)
    assert harness.work() == 0
    assert _campaign_runs(harness, head) == []


def _button(harness: Harness, head: str, identifier: str, check_name: str) -> None:
    payload = example("check_run.requested_action")
    payload["repository"]["full_name"] = REPO
    payload["installation"] = {"id": 7}
    payload["check_run"]["name"] = check_name
    payload["check_run"]["head_sha"] = head
    payload["check_run"]["pull_requests"] = [{"number": 5, "head": {"sha": head}, "base": {"sha": "x"}}]
    payload["requested_action"] = {"identifier": identifier}
    harness.deliver("check_run", payload)
    harness.work()


def test_buttons_run_the_same_jobs(harness: Harness) -> None:
    head = _feature(harness)
    _button(harness, head, "proctor-campaign", "Proctor campaign")
    (run,) = _campaign_runs(harness, head)
    assert run.conclusion == "success"
    (pull,) = harness.fake.pulls_from(REPO, BRANCH)
    harness.fake.close_pull(REPO, pull["number"])
    _button(harness, head, "proctor-deliver", "Proctor campaign")
    assert len(harness.fake.pulls_from(REPO, BRANCH)) == 1  # closed for this winner: not reopened
    _button(harness, head, "someone-elses", "Proctor campaign")
    assert len(_campaign_runs(harness, head)) == 1

    rerun = example("check_run.rerequested")  # "Re-run" in the checks tab, on the campaign's check
    rerun["repository"]["full_name"] = REPO
    rerun["installation"] = {"id": 7}
    rerun["check_run"]["name"] = "Proctor campaign"
    rerun["check_run"]["pull_requests"] = [{"number": 5, "head": {"sha": head}, "base": {"sha": "x"}}]
    harness.deliver("check_run", rerun)
    harness.work()
    assert [r.conclusion for r in _campaign_runs(harness, head)] == ["success", "success"]
    assert len(harness.fake.pulls_from(REPO, BRANCH)) == 1


def test_campaign_buttons_are_within_github_limits(harness: Harness) -> None:
    head = _feature(harness)
    _command(harness, "/proctor campaign")
    patches = [
        json.loads(r.body)
        for r in harness.fake.requests
        if r.method == "PATCH" and "/check-runs/" in r.path and b'"actions"' in r.body
    ]
    assert patches, "the completed campaign check run carries buttons"
    actions = patches[-1]["actions"]
    assert [a["label"] for a in actions] == ["Re-run", "Deliver"]
    assert len(actions) <= 3 and all(len(a["identifier"]) <= 20 for a in actions)
    assert _campaign_runs(harness, head)[0].conclusion == "success"


def test_the_token_never_reaches_a_candidate_or_a_text_sent_to_github(harness: Harness) -> None:
    harness.project.ws.branch("feature", {"solution/predict.py": predict("0.5", before="# feature\n")})
    dump = (
        'import os\nprint("ENVDUMP " + " ".join(f"{k}={v}" for k, v in os.environ.items()))\nprint("0.8")\n'
    )
    _candidate(harness, "candidate/snoop", {"solution/predict.py": dump})
    harness.project.publish()
    harness.pull_payload("opened", 5, "feature")
    _command(harness, "/proctor campaign")
    (campaign,) = harness.app.store.campaigns(REPO, 5)
    state = Path(campaign.report_path).with_name("state.json").read_text()
    assert "ENVDUMP" in state and "PATH=" in state  # the candidate's environment was recorded
    tokens = list(harness.fake.tokens)
    assert tokens
    for token in tokens:
        assert token not in state
        for recorded in harness.fake.requests:
            assert token.encode() not in recorded.body
    assert harness.fake.pulls_from(REPO, BRANCH)  # delivered: git pushes carried the token, in memory


GENERATOR = """\
import json, os, subprocess
feedback = json.load(open(os.environ["PROCTOR_FEEDBACK"]))
iteration = int(os.environ["PROCTOR_ITERATION"])
with open("solution/predict.py", "w") as handle:
    handle.write(f"print({0.5 + 0.1 * iteration:.1f})\\n")
with open("generator-env.txt", "w") as handle:
    handle.write(" ".join(f"{k}={v}" for k, v in os.environ.items()))
    handle.write(f" FEEDBACK-CANDIDATES={len(feedback['candidates'])}")
subprocess.run(["git", "add", "--all"], check=True)
subprocess.run(["git", "commit", "--quiet", "-m", f"generated {iteration}"], check=True)
"""


def test_a_generator_campaign_uses_the_head_as_parent_and_never_sees_a_token(tmp_path: Path) -> None:
    import sys

    from tests.core.campaign.conftest import CONFIG, build_workspace
    from tests.github_app import conftest

    config = CONFIG + f'generator = "{sys.executable} gen.py"\niterations = 2\n'
    ws = build_workspace(tmp_path / "work", config=config)
    ws.write("gen.py", GENERATOR)
    ws.commit_all("the generator")
    with conftest.harness_for(tmp_path, ws) as harness:
        harness.project.ws.branch("feature", {"solution/predict.py": predict("0.5", before="# feature\n")})
        harness.project.publish()
        head = harness.project.sha("feature")
        harness.pull_payload("opened", 5, "feature")
        _command(harness, "/proctor campaign")
        (run,) = _campaign_runs(harness, head)
        assert run.conclusion == "success", run.output
        (campaign,) = harness.app.store.campaigns(REPO, 5)
        board = json.loads(campaign.result)
        assert [c["score"] for c in board["candidates"]] == [0.6, 0.7]
        mirror = next((harness.app.settings.data_dir / "repos").glob("*.git"))
        tokens = list(harness.fake.tokens)
        for candidate in board["candidates"]:
            env = git(mirror, "show", f"{candidate['commit']}:generator-env.txt")
            assert "PROCTOR_FEEDBACK=" in env and "PATH=" in env
            assert all(token not in env for token in tokens)
        assert "FEEDBACK-CANDIDATES=1" in git(
            mirror, "show", f"{board['candidates'][1]['commit']}:generator-env.txt"
        )
        delivered = harness.fake.branch_sha(REPO, BRANCH)
        assert delivered is not None
        remote = harness.project.remote
        assert git(remote, "rev-parse", f"{delivered}^").strip() == head  # on the PR head
        winner = board["winner"]["commit"]
        assert git(mirror, "rev-parse", f"{winner}^{{tree}}") == git(
            remote, "rev-parse", f"{delivered}^{{tree}}"
        )
        (pull,) = harness.fake.pulls_from(REPO, BRANCH)
        assert pull["base"]["ref"] == "feature"


def test_the_pr_check_and_the_campaign_share_the_one_comment(harness: Harness) -> None:
    _feature(harness)
    _command(harness, "/proctor campaign")
    harness.deliver("pull_request", harness.pull_payload("opened", 5, "feature"))
    harness.work()
    body = _comment(harness)
    assert "### Proctor: " in body and "### Proctor campaign" in body  # the check did not wipe the campaign
    assert body.index("### Proctor: ") < body.index("### Proctor campaign")


def test_with_a_public_url_the_check_and_the_comment_link_the_report(tmp_path: Path) -> None:
    from tests.core.campaign.conftest import build_workspace
    from tests.github_app import conftest

    ws = build_workspace(tmp_path / "work")
    with conftest.harness_for(tmp_path, ws, PROCTOR_PUBLIC_URL="https://proctor.example.com") as harness:
        head = _feature(harness)
        _command(harness, "/proctor campaign")
        (campaign,) = harness.app.store.campaigns(REPO, 5)
        link = f"https://proctor.example.com/campaigns/{campaign.campaign_id}"
        (run,) = _campaign_runs(harness, head)
        assert run.details_url == link
        assert f"]({link})" in _comment(harness)
        (pull,) = harness.fake.pulls_from(REPO, BRANCH)
        assert link in pull["body"]
