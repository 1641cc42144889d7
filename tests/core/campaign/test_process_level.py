"""The `process` level, honestly named (SPEC §4.3): never a silent fallback for campaigns, every descendant of
a run dies with it (a `setsid` helper too), no run can reach another's directory by a known path, and
Proctor's own secrets are gone from `/proc/<proctor pid>/environ` before a candidate runs.

Each attack is first shown to work without Proctor's protection, then shown to fail under it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from core.cli import main
from core.runner import run_evaluator
from core.sandbox import probe as sandbox_probe
from tests.core.campaign.conftest import build_workspace, predict

ROOT = Path(__file__).resolve().parents[3]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def _daemon(pid_file: Path, marker: Path, *, then: str = "") -> str:
    """A program that leaves a `setsid` grandchild behind (it writes `marker` 1.5 s later), then,
    once the grandchild has written its pid, `then`."""
    return textwrap.dedent(
        f"""\
        import os, sys, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                open({str(pid_file)!r} + ".tmp", "w").write(str(os.getpid()))
                os.replace({str(pid_file)!r} + ".tmp", {str(pid_file)!r})
                time.sleep(1.5)
                open({str(marker)!r}, "w").write("still here")
                os._exit(0)
            os._exit(0)
        give_up = time.monotonic() + 10
        while not os.path.exists({str(pid_file)!r}) and time.monotonic() < give_up:
            time.sleep(0.01)
        {then}
        """
    )


def _wait_for(path: Path, seconds: float = 5.0) -> None:
    give_up = time.monotonic() + seconds
    while not _written(path) and time.monotonic() < give_up:
        time.sleep(0.02)


def _written(path: Path) -> bool:
    """The helper creates the file before it writes to it: wait for the content, not the name."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def test_a_setsid_helper_outlives_a_group_kill_but_not_a_process_level_run(tmp_path: Path) -> None:
    script = tmp_path / "evaluate.py"
    # Without Proctor's reaper: the process group is killed, the setsid grandchild is not in it.
    pid_file, marker = tmp_path / "plain.pid", tmp_path / "plain.marker"
    script.write_text(_daemon(pid_file, marker))
    proc = subprocess.Popen([sys.executable, str(script)], start_new_session=True)
    proc.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    _wait_for(pid_file)
    escaped = int(pid_file.read_text())
    try:
        _wait_for(marker)
        assert marker.exists() and marker.read_text() == "still here"
    finally:
        with contextlib.suppress(OSError):
            os.kill(escaped, signal.SIGKILL)
    # Under run_evaluator at the `process` level: it dies with the run, on a normal exit and at a timeout.
    for name, then, timeout in (("exit", "", 10.0), ("timeout", "time.sleep(30)", 1.0)):
        pid_file, marker = tmp_path / f"{name}.pid", tmp_path / f"{name}.marker"
        script.write_text(_daemon(pid_file, marker, then=then))
        result = run_evaluator(f"python {script}", tmp_path, timeout_s=timeout, sandbox="process")
        assert result.timed_out == (name == "timeout"), result
        assert pid_file.exists()
        assert not _alive(int(pid_file.read_text())), name
        time.sleep(1.6)
        assert not marker.exists(), name


def test_a_campaign_never_falls_back_to_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = build_workspace(tmp_path / "repo", config='timeout_s = 5\nmetric = "score"\n')
    ws.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    monkeypatch.setattr(
        sandbox_probe, "_namespace_probe", lambda: "bwrap: not installed; unshare: not installed"
    )
    code = main(["campaign", "--repo", str(ws.root), "--campaign-id", "auto"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    (line,) = err.strip().splitlines()
    assert "bubblewrap" in line and 'sandbox = "process"' in line and "not isolated" in line
    assert not (ws.root / ".proctor" / "campaigns" / "auto" / "state.json").exists()


HELPER = """\
import glob, os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open({pid_file!r}, "w").write(str(os.getpid()))
        here = os.getcwd()
        parent = os.path.dirname(here)
        give_up = time.time() + 8
        while time.time() < give_up:
            targets = glob.glob(os.path.join(parent, "*", "solution", "predict.py"))
            targets += [os.path.join(parent, f"candidate-{{i}}", "solution", "predict.py") for i in range(5)]
            for target in targets:
                if not target.startswith(here):
                    try:
                        open(target, "w").write("print('0.99')\\n")
                    except OSError:
                        pass
            time.sleep(0.02)
        os._exit(0)
    os._exit(0)
time.sleep(0.2)
print("0.1")
"""


def test_a_helper_cannot_rewrite_the_next_candidate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = 'timeout_s = 10\nmetric = "score"\n\n[campaign]\nsandbox = "process"\nparallel = 1\n'
    ws = build_workspace(tmp_path / "repo", config=config)
    pid_file = tmp_path / "helper.pid"
    ws.branch("candidate/a-helper", {"solution/predict.py": HELPER.format(pid_file=str(pid_file))})
    ws.branch("candidate/b-honest", {"solution/predict.py": predict("0.7")})
    code = main(["campaign", "--format", "json", "--repo", str(ws.root), "--campaign-id", "helper"])
    out = capsys.readouterr().out
    assert code == 0
    board = json.loads(out)
    by_ref = {c["ref"]: c for c in board["candidates"]}
    assert by_ref["candidate/b-honest"]["score"] == 0.7
    assert board["winner"]["ref"] == "candidate/b-honest"
    assert board["isolation"]["isolated"] is False  # and the scoreboard says so
    assert not _alive(int(pid_file.read_text()))


SNOOP = """\
import os
names = [b"OPENAI_API_KEY=", b"GITHUB_TOKEN=", b"JUDGE_VAR="]
found = False
pid = os.getpid()
while pid > 1:
    try:
        env = open(f"/proc/{pid}/environ", "rb").read()
        stat = open(f"/proc/{pid}/stat", "rb").read()
    except OSError:
        break
    found = found or any(name in env for name in names)
    pid = int(stat.rsplit(b")", 1)[-1].split()[1])
print("1.0" if found else "0.2")
"""


def test_proctor_environ_holds_no_secret_a_candidate_can_read(tmp_path: Path) -> None:
    config = (
        'timeout_s = 10\nmetric = "score"\n\n[campaign]\nsandbox = "process"\nparallel = 1\n\n'
        '[judge]\napi_key_env = "JUDGE_VAR"\n'
    )
    ws = build_workspace(tmp_path / "repo", config=config)
    ws.branch("candidate/snoop", {"solution/predict.py": SNOOP})
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PYTHON"))}
    secrets = {"OPENAI_API_KEY": "sk-test-1", "GITHUB_TOKEN": "ghp_test2", "JUDGE_VAR": "judge-3"}
    # By hand, under a parent holding the keys, the snooping candidate finds them.
    snoop = ws.root / "snoop.py"
    snoop.write_text(SNOOP)
    parent = f"import subprocess, sys; subprocess.run([sys.executable, {str(snoop)!r}], env={{}})"
    by_hand = subprocess.run(
        [sys.executable, "-c", parent],
        env={**base_env, **secrets},
        capture_output=True,
        text=True,
        check=True,
    )
    assert by_hand.stdout.strip() == "1.0"
    snoop.unlink()
    # The real `proctor` program, at the process level: its environment block no longer holds them.
    done = subprocess.run(
        [sys.executable, "-m", "core", "campaign", "--format", "json", "--repo", str(ws.root)],
        env={**base_env, **secrets, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    board = json.loads(done.stdout)
    (snooper,) = board["candidates"]
    assert snooper["status"] == "scored" and snooper["score"] == 0.2
    assert not any(value in done.stdout + done.stderr for value in secrets.values())
