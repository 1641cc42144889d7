"""kill -9 of the app in the middle of a campaign, then a restart: the campaign resumes from its checkpoint
(finished candidates are not measured again), its check run is reused, and one delivery PR is opened."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.core.campaign.conftest import git
from tests.github_app.conftest import REPO, Harness

BRANCH = "proctor/delivered/pr-5"
SLOW = """\
import time
from pathlib import Path
with open({log!r}, "a") as handle:
    handle.write({name!r} + "\\n")
time.sleep(1.5)
print({value!r})
"""


def _slow_candidates(harness: Harness, log: Path) -> list[str]:
    ws = harness.project.ws
    ws.branch("feature", {"solution/predict.py": "print('0.5')\n"})
    names = [f"candidate/c{i}" for i in range(1, 6)]
    for i, name in enumerate(names, start=1):
        git(ws.root, "checkout", "--quiet", "-B", name, "feature")
        ws.write("solution/predict.py", SLOW.format(log=str(log), name=name, value=f"{0.5 + 0.05 * i:.2f}"))
        ws.commit_all(name)
        git(ws.root, "checkout", "--quiet", "main")
    harness.project.publish()
    harness.pull_payload("opened", 5, "feature")
    return names


def _finished(state_file: Path) -> list[str]:
    try:
        state = json.loads(state_file.read_text())
    except (OSError, ValueError):
        return []
    return [r["ref"] for r in state.get("records", []) if r.get("index", 0) > 0]


def _state_file(harness: Harness) -> Path | None:
    found = list((harness.app.settings.data_dir / "repos").glob("*.git/.proctor/campaigns/*/state.json"))
    return found[0] if found else None


def _start_worker(harness: Harness) -> subprocess.Popen[bytes]:
    env = {**os.environ, **harness.env}
    return subprocess.Popen(
        [sys.executable, "-m", "github_app", "worker"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def test_kill_9_mid_campaign_then_restart_resumes_and_doubles_nothing(
    harness: Harness, tmp_path: Path
) -> None:
    log = tmp_path / "runs.log"
    names = _slow_candidates(harness, log)
    harness.deliver("issue_comment", harness.comment_payload(5, "/proctor campaign"))
    worker = _start_worker(harness)
    try:
        deadline = time.monotonic() + 120
        before: list[str] = []
        while time.monotonic() < deadline and not before:
            state = _state_file(harness)
            before = _finished(state) if state is not None else []
            time.sleep(0.05)
        assert before, "the campaign never got going in the worker"
        os.killpg(worker.pid, signal.SIGKILL)  # the whole app process group, as a crash would
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=30)
    assert len(before) < len(names), "killed too late: the campaign had already finished"
    head = harness.project.sha("feature")
    runs = [r for r in harness.fake.runs_for(head) if r.name == "Proctor campaign"]
    assert len(runs) == 1 and runs[0].status == "in_progress"

    assert harness.app.runner().recover() == 1  # the restart finds the dead worker's job
    harness.work()

    runs = [r for r in harness.fake.runs_for(head) if r.name == "Proctor campaign"]
    assert len(runs) == 1 and runs[0].conclusion == "success"  # the same check run, completed
    state = _state_file(harness)
    assert state is not None
    after = _finished(state)
    assert sorted(after) == sorted(names)  # every candidate once in the checkpoint
    ran = log.read_text().split()
    for name in before:
        assert ran.count(name) == 1, f"{name} finished before the kill and was measured again"
    (pull,) = harness.fake.pulls_from(REPO, BRANCH)
    assert pull["head"]["sha"] == harness.project.sha("candidate/c5")
    assert len(harness.app.store.campaigns(REPO, 5)) == 1
    comments = [c for c in harness.fake.comments_on(REPO, 5) if "<!-- proctor:pr -->" in c["body"]]
    assert len(comments) == 1
