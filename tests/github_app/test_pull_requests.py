"""Pull requests end to end: check runs, titles, conclusions, annotations and the one comment, via the fake."""

from __future__ import annotations

import os
from typing import Any

import pytest

from github_app.store import Store
from tests.core.campaign.conftest import predict
from tests.github_app.conftest import REPO, Harness


def test_opened_pr_is_scored_against_its_base_and_commented(harness: Harness) -> None:
    ws = harness.project.ws
    ws.branch("better", {"solution/predict.py": predict("0.75")})
    harness.project.publish()
    answer = harness.deliver("pull_request", harness.pull_payload("opened", 5, "better"))
    assert answer.status_code == 202
    assert harness.work() == 1
    (run,) = harness.fake.runs_for(harness.project.sha("better"))
    assert run.name == "Proctor"
    assert run.history[0] == "queued" and "in_progress" in run.history and run.status == "completed"
    assert run.conclusion == "success"
    assert run.output["title"].startswith("score 0.7500 (+0.2500 ± ")
    assert run.output["title"].endswith(" vs base)")
    assert "| base |" in run.output["summary"] and "0.5000" in run.output["summary"]
    (comment,) = harness.fake.comments_on(REPO, 5)
    assert comment["body"].startswith("<!-- proctor:pr -->")
    # The workspace asks for the `process` sandbox: the first thing a reader sees says so.
    assert comment["body"].splitlines()[1].startswith("**not isolated**")
    assert run.output["summary"].startswith("**not isolated**")
    assert "score 0.7500" in comment["body"]
    assert harness.fake.violations == []
    # The uncut report, for texts GitHub's limits would cut, stays in the data dir.
    (report,) = harness.app.settings.data_dir.glob("reports/*/pr-5-*.md")
    assert report.read_text().startswith("# success: score 0.7500")
    page = harness.client.get("/").text
    assert "octo/demo" in page and "#5" in page and "score 0.7500" in page


def test_worse_head_fails_the_check(harness: Harness) -> None:
    harness.project.ws.branch("worse", {"solution/predict.py": predict("0.25")})
    harness.project.publish()
    harness.deliver("pull_request", harness.pull_payload("opened", 6, "worse"))
    harness.work()
    (run,) = harness.fake.runs_for(harness.project.sha("worse"))
    assert run.conclusion == "failure"
    assert run.output["title"].startswith("score 0.2500 (-0.2500")


def test_tampering_pr_is_rejected_with_report_and_annotation(harness: Harness) -> None:
    harness.project.ws.branch(
        "tamper",
        {"kapso_evaluation/evaluate.py": "print('score: 1.0')\n", "solution/predict.py": predict("0.6")},
    )
    harness.project.publish()
    harness.deliver("pull_request", harness.pull_payload("opened", 7, "tamper"))
    harness.work()
    (run,) = harness.fake.runs_for(harness.project.sha("tamper"))
    assert run.conclusion == "failure"
    assert run.output["title"] == "rejected: IN001 kapso_evaluation/evaluate.py changed"
    paths = {(a["path"], a["annotation_level"]) for a in run.annotations}
    assert ("kapso_evaluation/evaluate.py", "failure") in paths
    # The static rules ran on the changed evaluator too: their findings are annotations at file and line.
    rules = [a for a in run.annotations if a["title"].startswith("EV")]
    assert rules and all(a["path"] == "kapso_evaluation/evaluate.py" and a["start_line"] >= 1 for a in rules)
    (comment,) = harness.fake.comments_on(REPO, 7)
    assert "IN001" in comment["body"] and "protected file changed" in comment["body"]
    assert "/proctor accept-evaluator" in comment["body"]


def test_synchronize_makes_a_new_check_run_and_updates_the_same_comment(harness: Harness) -> None:
    ws = harness.project.ws
    ws.branch("feature", {"solution/predict.py": predict("0.6")})
    harness.project.publish()
    harness.deliver("pull_request", harness.pull_payload("opened", 8, "feature"))
    harness.work()
    first = harness.project.sha("feature")
    from tests.core.campaign.conftest import git

    git(ws.root, "checkout", "--quiet", "feature")
    ws.write("solution/predict.py", predict("0.7"))
    second = ws.commit_all("faster")
    git(ws.root, "checkout", "--quiet", "main")
    harness.project.publish()
    harness.deliver("pull_request", harness.pull_payload("synchronize", 8, "feature"))
    harness.work()
    assert [r.conclusion for r in harness.fake.runs_for(first)] == ["success"]
    (run,) = harness.fake.runs_for(second)
    assert run.output["title"].startswith("score 0.7000")
    (comment,) = harness.fake.comments_on(REPO, 8)
    assert comment["_edits"] == 1 and "score 0.7000" in comment["body"]


def test_a_newer_push_cancels_the_older_heads_check(harness: Harness) -> None:
    ws = harness.project.ws
    ws.branch("quick", {"solution/predict.py": predict("0.6")})
    harness.project.publish()
    harness.deliver("pull_request", harness.pull_payload("opened", 9, "quick"))
    first = harness.project.sha("quick")
    from tests.core.campaign.conftest import git

    git(ws.root, "checkout", "--quiet", "quick")
    ws.write("solution/predict.py", predict("0.65"))
    second = ws.commit_all("again")
    git(ws.root, "checkout", "--quiet", "main")
    harness.project.publish()
    harness.deliver("pull_request", harness.pull_payload("synchronize", 9, "quick"))
    harness.work()
    (old,) = harness.fake.runs_for(first)
    assert old.conclusion == "cancelled" and "superseded" in old.output["title"]
    (new,) = harness.fake.runs_for(second)
    assert new.conclusion == "success"


def test_redelivery_is_200_and_does_no_new_work(harness: Harness) -> None:
    harness.project.ws.branch("again", {"solution/predict.py": predict("0.55")})
    harness.project.publish()
    payload = harness.pull_payload("opened", 10, "again")
    assert harness.deliver("pull_request", payload, delivery="same-id").status_code == 202
    assert harness.deliver("pull_request", payload, delivery="same-id").status_code == 200
    assert harness.work() == 1
    # The same work under a new delivery id (GitHub sends `reopened`): not worked twice.
    assert harness.deliver("pull_request", payload, delivery="other-id").status_code == 202
    harness.work()
    assert len(harness.fake.runs_for(harness.project.sha("again"))) == 1


def test_github_errors_are_retried_and_the_job_completes(harness: Harness) -> None:
    harness.project.ws.branch("flaky", {"solution/predict.py": predict("0.7")})
    harness.project.publish()
    harness.fake.fail_next(502, method="POST", path_contains="/check-runs")
    harness.fake.fail_next(429, headers={"Retry-After": "1"}, method="PATCH", path_contains="/check-runs/")
    harness.fake.fail_next(
        403,
        headers={"Retry-After": "1"},
        method="POST",
        path_contains="/comments",
        body={"message": "You have exceeded a secondary rate limit."},
    )
    harness.deliver("pull_request", harness.pull_payload("opened", 11, "flaky"))
    harness.work()
    statuses = [r.status for r in harness.fake.requests if not r.path.startswith("/git/")]
    assert 502 in statuses and 429 in statuses and 403 in statuses
    (run,) = harness.fake.runs_for(harness.project.sha("flaky"))
    assert run.conclusion == "success"
    assert len(harness.fake.comments_on(REPO, 11)) == 1


def test_the_token_reaches_git_only_in_memory(harness: Harness) -> None:
    harness.project.ws.branch("secret", {"solution/predict.py": predict("0.7")})
    harness.project.publish()
    harness.deliver("pull_request", harness.pull_payload("opened", 12, "secret"))
    harness.work()
    tokens = list(harness.fake.tokens)
    assert tokens
    git_requests = [r for r in harness.fake.requests if r.path.startswith("/git/")]
    assert git_requests and all(r.status in (200, 401) for r in git_requests)
    for record in harness.fake.requests:
        for token in tokens:
            assert token.encode() not in record.body
            assert token not in record.path
    data = harness.app.settings.data_dir
    for path in data.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert not any(token.encode() in content for token in tokens), path


def test_a_job_that_died_right_after_creating_its_check_run_reuses_it(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness.project.ws.branch("crashy", {"solution/predict.py": predict("0.7")})
    harness.project.publish()
    harness.deliver("pull_request", harness.pull_payload("opened", 13, "crashy"))
    original = Store.save_check_run
    died: list[bool] = []

    def die_once(self: Store, *args: Any, **values: Any) -> None:
        if "check_run_id" in values and not died:
            died.append(True)
            raise RuntimeError("killed between GitHub's answer and the commit")
        original(self, *args, **values)

    monkeypatch.setattr(Store, "save_check_run", die_once)
    harness.work()
    (orphan,) = harness.fake.runs_for(harness.project.sha("crashy"))
    assert orphan.status == "queued"
    runner = harness.app.runner()
    for job_id in harness.app.store.recover():
        runner.run(job_id)
    (run,) = harness.fake.runs_for(harness.project.sha("crashy"))
    assert run.id == orphan.id and run.conclusion == "success"


def test_in_the_namespace_sandbox_no_secret_reaches_the_candidate(harness: Harness) -> None:
    from core.errors import RunnerError
    from core.runner import choose_sandbox
    from tests.core.campaign.conftest import git

    try:
        choose_sandbox("namespace")
    except RunnerError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the namespace sandbox does not work here: {exc}")
        pytest.skip(f"the namespace sandbox (bubblewrap or unshare) does not work here: {exc}")

    ws = harness.project.ws
    ws.write("proctor.toml", ws.root.joinpath("proctor.toml").read_text().replace('"process"', '"namespace"'))
    ws.commit_all("isolate")
    snoop = (
        "import os, sys\n"
        "print(sorted(os.environ.items()), file=sys.stderr)\n"
        "for pid in os.listdir('/proc'):\n"
        "    if pid.isdigit():\n"
        "        try: print(open(f'/proc/{pid}/environ', 'rb').read(), file=sys.stderr)\n"
        "        except OSError as exc: print(pid, exc, file=sys.stderr)\n"
        "sys.exit(3)\n"
    )
    ws.branch("snoop", {"solution/predict.py": snoop})
    git(ws.root, "checkout", "--quiet", "main")
    harness.project.publish()
    harness.deliver("pull_request", harness.pull_payload("opened", 14, "snoop"))
    harness.work()
    (run,) = harness.fake.runs_for(harness.project.sha("snoop"))
    assert run.conclusion == "failure" and run.output["title"].startswith("failed: ")
    assert "namespace via" in run.output["summary"] and "not isolated" not in run.output["summary"]
    (comment,) = harness.fake.comments_on(REPO, 14)
    assert "the candidate exited 3" in comment["body"]
    assert "PROCTOR_RUN_CANDIDATE" in comment["body"]  # what the candidate saw did reach GitHub
    secrets = [*harness.fake.tokens, harness.env["PROCTOR_WEBHOOK_SECRET"], "PRIVATE KEY"]
    for record in harness.fake.requests:
        assert not any(secret.encode() in record.body for secret in secrets)
