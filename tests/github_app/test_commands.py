"""Fork PRs wait for a maintainer; `/proctor run` and `/proctor accept-evaluator`; others get a polite reply."""

from __future__ import annotations

from tests.core.campaign.conftest import predict
from tests.github_app.conftest import REPO, Harness


def test_fork_pr_waits_until_a_maintainer_says_run(harness: Harness) -> None:
    harness.project.ws.branch("fork-work", {"solution/predict.py": predict("0.7")})
    harness.project.publish()
    head = harness.project.sha("fork-work")
    harness.deliver("pull_request", harness.pull_payload("opened", 20, "fork-work", fork="stranger/demo"))
    harness.work()
    (waiting,) = harness.fake.runs_for(head)
    assert waiting.conclusion == "action_required"
    assert "/proctor run" in waiting.output["title"]
    assert "in_progress" not in waiting.history  # nothing of the fork ran

    harness.deliver("issue_comment", harness.comment_payload(20, "/proctor run", association="CONTRIBUTOR"))
    harness.work()
    assert len(harness.fake.runs_for(head)) == 1
    (reply,) = harness.fake.comments_on(REPO, 20)
    assert "owners, members and collaborators" in reply["body"] and "nothing was run" in reply["body"]

    harness.deliver("issue_comment", harness.comment_payload(20, "/proctor run", association="MEMBER"))
    harness.work()
    runs = harness.fake.runs_for(head)
    assert [r.conclusion for r in runs] == ["action_required", "success"]
    assert runs[1].output["title"].startswith("score 0.7000")


def test_accept_evaluator_registers_a_new_version_and_reruns(harness: Harness) -> None:
    new_suite = harness.project.ws.root.joinpath("kapso_evaluation/evaluate.py").read_text() + "# stricter\n"
    harness.project.ws.branch(
        "suite-change", {"kapso_evaluation/evaluate.py": new_suite, "solution/predict.py": predict("0.6")}
    )
    harness.project.publish()
    head = harness.project.sha("suite-change")
    harness.deliver("pull_request", harness.pull_payload("opened", 21, "suite-change"))
    harness.work()
    (rejected,) = harness.fake.runs_for(head)
    assert rejected.conclusion == "failure" and rejected.output["title"].startswith("rejected: IN001")

    harness.deliver(
        "issue_comment", harness.comment_payload(21, "/proctor accept-evaluator", association="OWNER")
    )
    harness.work()
    runs = harness.fake.runs_for(head)
    assert len(runs) == 2
    rerun = runs[1]
    assert rerun.conclusion == "neutral"
    assert rerun.output["title"] == "score 0.6000 (evaluator v2; base under v1: not comparable)"
    assert "not comparable" in rerun.output["summary"]
    bodies = [c["body"] for c in harness.fake.comments_on(REPO, 21)]
    assert any("evaluator version 2" in b for b in bodies)
    from core.registry import load_registry
    from github_app import registry

    entries = load_registry(registry.workspace(harness.app.settings.data_dir, REPO))
    assert [(e.version, e.provenance) for e in entries] == [(1, "provided"), (2, "provided")]
    assert "pull request #21" in entries[1].reason


def test_unknown_and_later_commands_get_a_reply_and_run_nothing(harness: Harness) -> None:
    harness.project.ws.branch("cmd", {"solution/predict.py": predict("0.6")})
    harness.project.publish()
    harness.pull_payload("opened", 22, "cmd")
    harness.deliver(
        "issue_comment", harness.comment_payload(22, "/proctor frobnicate @someone", association="OWNER")
    )
    harness.deliver("issue_comment", harness.comment_payload(22, "/proctor deliver", association="OWNER"))
    harness.deliver("issue_comment", harness.comment_payload(22, "just a comment", association="OWNER"))
    harness.work()
    bodies = [c["body"] for c in harness.fake.comments_on(REPO, 22)]
    assert len(bodies) == 2
    assert "does not know" in bodies[0] and "@someone" not in bodies[0]
    assert "Nothing to deliver" in bodies[1]  # no campaign has run on this PR
    assert harness.fake.runs_for(harness.project.sha("cmd")) == []


def test_rerequested_check_run_measures_again(harness: Harness) -> None:
    from tests.github_app.conftest import example

    harness.project.ws.branch("rerun", {"solution/predict.py": predict("0.6")})
    harness.project.publish()
    head = harness.project.sha("rerun")
    harness.deliver("pull_request", harness.pull_payload("opened", 23, "rerun"))
    harness.work()
    payload = example("check_run.rerequested")
    payload["repository"]["full_name"] = REPO
    payload["installation"] = {"id": 7}
    payload["check_run"]["name"] = "Proctor"
    payload["check_run"]["pull_requests"] = [{"number": 23, "head": {"sha": head}, "base": {"sha": "x"}}]
    harness.deliver("check_run", payload)
    harness.work()
    assert [r.conclusion for r in harness.fake.runs_for(head)] == ["success", "success"]
    payload["check_run"]["name"] = "someone else's check"
    harness.deliver("check_run", payload)
    assert harness.work() == 0
