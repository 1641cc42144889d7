"""Resume (SPEC §5.4): kill -9 at several points, then --resume gives the uninterrupted scoreboard; a changed
fingerprint is refused with a message naming what changed; the external evaluator is not re-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from core.campaign.state import CampaignState
from core.cli import main
from tests.core.campaign.conftest import Workspace, comparable, predict, scoreboard

REPO_ROOT = Path(__file__).resolve().parents[3]
HELPERS = "tests.core.campaign.helpers"
OBSERVE = f"{HELPERS}:observe"


def add_candidates(ws: Workspace, marker: Path) -> None:
    """Six candidates, slow enough that a kill lands mid-campaign; `c-slow` announces that it is running."""
    slow = "import time\ntime.sleep(0.4)\n"
    ws.branch("candidate/a-better", {"solution/predict.py": predict("0.8", before=slow)})
    ws.branch("candidate/b-worse", {"solution/predict.py": predict("0.3", before=slow)})
    ws.branch(
        "candidate/c-slow",
        {"solution/predict.py": predict("0.7", before=f"open({str(marker)!r}, 'w').close()\n{slow}{slow}")},
    )
    ws.branch("candidate/d-tamper", {"kapso_evaluation/evaluate.py": "print('score: 1')\n"})
    ws.branch("candidate/e-crash", {"solution/predict.py": slow + "raise SystemExit(2)\n"})
    ws.branch("candidate/f-best", {"solution/predict.py": predict("0.9", before=slow)})


def campaign_process(
    ws: Workspace, cid: str, *extra: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", HELPERS, "campaign", "--repo", str(ws.root), "--campaign-id", cid, "--format", "json",
         "--parallel", "2", "--iteration-evaluator", OBSERVE, *extra],
        cwd=REPO_ROOT,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


class FileWatcher:
    """Parses state.json and the history in a loop while the campaign runs: they must always be valid."""

    def __init__(self, ws: Workspace, cid: str) -> None:
        self.paths = [
            ws.root / ".proctor/campaigns" / cid / "state.json",
            ws.root / ".kapso/experiment_history.json",
        ]
        self.problems: list[str] = []
        self.reads = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> FileWatcher:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            for path in self.paths:
                try:
                    text = path.read_text(encoding="utf-8")
                except FileNotFoundError:
                    continue
                try:
                    data = json.loads(text)
                    if path.name == "state.json":
                        CampaignState.from_json(data)
                    self.reads += 1
                except (ValueError, KeyError, TypeError) as exc:
                    self.problems.append(f"{path.name}: {exc}")
            time.sleep(0.002)


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            _out, err = proc.communicate()
            pytest.fail(f"the campaign ended before the kill point (exit {proc.returncode}): {err[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the kill point was never reached")
        time.sleep(0.005)


def records_in(ws: Workspace, cid: str) -> int:
    path = ws.root / ".proctor/campaigns" / cid / "state.json"
    try:
        return len(json.loads(path.read_text())["records"])
    except (FileNotFoundError, ValueError):
        return 0


def checkpoint_tmp_exists(ws: Workspace, cid: str) -> bool:
    folder = ws.root / ".proctor/campaigns" / cid
    return folder.is_dir() and any(p.name.startswith(".state.json.") for p in folder.iterdir())


def finished_indexes(ws: Workspace, cid: str) -> set[int]:
    path = ws.root / ".proctor/campaigns" / cid / "state.json"
    if not path.exists():
        return set()
    return {r["index"] for r in json.loads(path.read_text())["records"]}


def calls(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.fixture
def reference(workspace: Workspace, tmp_path: Path) -> dict[str, object]:
    add_candidates(workspace, tmp_path / "marker-ref")
    proc = campaign_process(workspace, "reference")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    board = json.loads(out)
    assert board == scoreboard(workspace.root, "reference")
    return board


@pytest.mark.parametrize("point", ["during-a-run", "between-candidates", "during-the-checkpoint-write"])
def test_kill_9_then_resume_gives_the_uninterrupted_scoreboard(
    workspace: Workspace, tmp_path: Path, reference: dict[str, object], point: str
) -> None:
    marker = tmp_path / "marker-ref"
    marker.unlink(missing_ok=True)
    call_log = tmp_path / "calls.txt"
    env = {"PROCTOR_TEST_CALLS": str(call_log)}
    if point == "during-the-checkpoint-write":
        env["PROCTOR_TEST_SLOW_CHECKPOINT"] = "0.3"
    cid = f"killed-{point}"
    with FileWatcher(workspace, cid) as watcher:
        proc = campaign_process(workspace, cid, env=env)
        if point == "during-a-run":
            wait_for(marker.exists, proc)
        elif point == "between-candidates":
            wait_for(lambda: records_in(workspace, cid) >= 3, proc)
        else:
            wait_for(lambda: records_in(workspace, cid) >= 2 and checkpoint_tmp_exists(workspace, cid), proc)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        done_before = finished_indexes(workspace, cid)
        calls_before = calls(call_log)
        resumed = campaign_process(workspace, cid, "--resume", env={"PROCTOR_TEST_CALLS": str(call_log)})
        out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert not watcher.problems and watcher.reads > 0
    assert comparable(json.loads(out)) == comparable(reference)
    assert comparable(scoreboard(workspace.root, cid)) == comparable(reference)
    # The external evaluator ran once per candidate finished before the kill: resume did not repeat it.
    after = calls(call_log)
    new_calls = after[len(calls_before) :]
    assert not set(new_calls) & done_before
    assert set(after) == {1, 2, 3, 4, 5, 6}
    history = json.loads((workspace.root / ".kapso/experiment_history.json").read_text())
    mine = [h for h in history if f"campaign {cid} " in h["solution"]]
    assert len(mine) == 7 and len({h["solution"] for h in mine}) == 7  # baseline + 6, none twice
    state = json.loads((workspace.root / ".proctor/campaigns" / cid / "state.json").read_text())
    assert state["complete"] is True and len(state["records"]) == 6


def test_resume_of_a_finished_campaign_measures_nothing_again(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    call_log = tmp_path / "calls.txt"
    monkeypatch.setenv("PROCTOR_TEST_CALLS", str(call_log))
    args = ["campaign", "--repo", str(workspace.root), "--format", "json", "--iteration-evaluator", OBSERVE]
    assert main([*args, "--campaign-id", "done"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert calls(call_log) == [1]
    history_before = (workspace.root / ".kapso/experiment_history.json").read_text()
    # Without --campaign-id, --resume continues the latest campaign.
    assert main([*args, "--resume"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again == first
    assert calls(call_log) == [1]
    assert (workspace.root / ".kapso/experiment_history.json").read_text() == history_before
    external = first["candidates"][0]
    assert external["external_metrics"] == {"predict_bytes": 13.0, "iteration": 1.0}
    assert external["external_evaluation_error"] is None


def test_resume_is_refused_naming_what_changed(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    workspace.branch("candidate/b", {"solution/predict.py": predict("0.7")})
    base = ["campaign", "--repo", str(workspace.root), "--campaign-id", "fp", "--format", "json"]
    assert main([*base, "--iteration-evaluator", OBSERVE]) == 0
    capsys.readouterr()

    def refused(*args: str) -> str:
        assert main([*base, "--resume", *args]) == 2
        return capsys.readouterr().err

    assert "the candidate source" in refused("--iteration-evaluator", OBSERVE, "--candidates", "candidate/a")
    err = refused("--iteration-evaluator", f"{HELPERS}:broken")
    assert "the iteration evaluator" in err and "broken" in err and "observe" in err
    assert "the iteration evaluator failure policy" in refused(
        "--iteration-evaluator", OBSERVE, "--iteration-evaluator-failure-policy", "raise"
    )
    assert "the iteration evaluator" in refused()  # resuming without it is a change too
    workspace.write(
        "proctor.toml", 'command = "python x.py"\n' + (workspace.root / "proctor.toml").read_text()
    )
    workspace.write("kapso_evaluation/extra.py", "X = 1\n")
    workspace.commit_all("new evaluator")
    err = refused("--iteration-evaluator", OBSERVE, "--baseline", "main")
    assert "the evaluator command" in err and "the evaluator (suite fingerprint)" in err
    assert "the baseline commit" in err and "Traceback" not in err
    # Unchanged, it resumes fine.
    assert main([*base, "--resume", "--iteration-evaluator", OBSERVE]) == 0


def test_external_evaluator_sees_an_isolated_copy_and_cannot_change_results(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    workspace.branch("candidate/b", {"solution/predict.py": predict("0.4")})
    args = ["campaign", "--repo", str(workspace.root), "--format", "json", "--parallel", "1"]
    assert main([*args, "--campaign-id", "plain"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*args, "--campaign-id", "mut", "--iteration-evaluator", f"{HELPERS}:mutate"]) == 0
    mutated = json.loads(capsys.readouterr().out)
    for board in (plain, mutated):
        for candidate in board["candidates"]:
            candidate.pop("external_metrics")
            candidate.pop("duration_s")
        board.pop("campaign_id")
    assert plain == mutated
    assert (workspace.root / "solution/predict.py").read_text() == predict("0.5")


def test_policy_record_and_raise(workspace: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    args = [
        "campaign",
        "--repo",
        str(workspace.root),
        "--format",
        "json",
        "--iteration-evaluator",
        f"{HELPERS}:broken",
    ]
    assert main([*args, "--campaign-id", "rec"]) == 0
    board = json.loads(capsys.readouterr().out)
    row = board["candidates"][0]
    assert row["status"] == "scored" and row["external_metrics"] == {}
    assert row["external_evaluation_error"] == "ValueError: holdout unavailable for candidate/a"
    history = json.loads((workspace.root / ".kapso/experiment_history.json").read_text())
    assert [h["external_evaluation_error"] for h in history if h["node_id"] == 1] == [
        row["external_evaluation_error"]
    ]

    code = main([*args, "--campaign-id", "rai", "--iteration-evaluator-failure-policy", "raise"])
    err = capsys.readouterr().err
    assert code == 2 and "holdout unavailable" in err and "Traceback" not in err
    state = json.loads((workspace.root / ".proctor/campaigns/rai/state.json").read_text())
    assert state["records"] == [] and state["complete"] is False
    history = json.loads((workspace.root / ".kapso/experiment_history.json").read_text())
    assert not [h for h in history if "campaign rai candidate 1" in h["solution"]]
