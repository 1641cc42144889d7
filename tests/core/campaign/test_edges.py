"""Edges met on real projects, each one line with the right exit code: --version, a repository without commits,
a bare repository, a read-only checkout (--state-dir / PROCTOR_STATE_DIR), Ctrl-C and kill -9 leftovers,
an untracked result.json, `judge --free` without an endpoint, and no SPEC citations in user-facing text."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import __version__
from core.cli import main
from core.state_root import ENV
from tests.core.campaign.conftest import Workspace, git, predict

REPO_ROOT = Path(__file__).resolve().parents[3]


def proctor(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "core", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        start_new_session=True,
    )


@pytest.fixture(autouse=True)
def _no_state_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "")  # restored after the test, also when --state-dir set it in this process


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"proctor {__version__}\n"


def test_a_repository_without_commits_says_commit_a_baseline_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(tmp_path, "init", "--quiet")
    assert main(["campaign", "--repo", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no commits yet: commit a baseline first" in err


def test_a_bare_repository_is_measured_from_its_objects(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.7")})
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(workspace.root), str(bare))
    code = main(["campaign", "--repo", str(bare), "--campaign-id", "b1", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    board = json.loads(out)
    assert board["winner"]["ref"] == "candidate/a"
    assert (bare / ".proctor/campaigns/b1/scoreboard.json").is_file()
    assert "warning" not in err  # no working tree to compare the config with


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = ["unshare", "--user", "--map-root-user", "--mount", "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def test_a_read_only_checkout_says_where_state_goes_and_state_dir_moves_it(
    workspace: Workspace, tmp_path: Path
) -> None:
    if not _unshare_works():
        if os.environ.get("CI") == "true":
            pytest.fail("unshare with user and mount namespaces is needed in CI for the read-only mount")
        pytest.skip("unshare with user and mount namespaces is not available")
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.7")})
    repo, state = workspace.root, tmp_path / "state"
    script = (
        f"mount --bind {repo} {repo} && mount -o remount,bind,ro {repo} && "
        f"{sys.executable} -m core campaign --repo {repo} --campaign-id r1 --format json; echo rc=$?; "
        f"{sys.executable} -m core campaign --repo {repo} --campaign-id r2 --format json --state-dir {state}; "
        "echo rc=$?"
    )
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    codes = [line for line in done.stdout.splitlines() if line.startswith("rc=")]
    assert codes == ["rc=2", "rc=0"], done.stderr
    first_error = next(line for line in done.stderr.splitlines() if "error" in line)
    assert first_error == (
        f"proctor: error: cannot write Proctor's state to {repo / '.proctor'} (Read-only file system): point "
        "it at a writable directory with --state-dir DIR or PROCTOR_STATE_DIR=DIR"
    )
    assert "Traceback" not in done.stderr
    assert (state / "campaigns/r2/scoreboard.json").is_file() and (
        state / "experiment_history.json"
    ).is_file()
    assert not (repo / ".proctor").exists()


def _wait_for(process: subprocess.Popen[str], text: str, timeout: float = 300) -> list[str]:
    """Lines of stderr up to and including the first containing `text`."""
    assert process.stderr is not None
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        seen.append(line)
        if text in line:
            return seen
    raise AssertionError(f"never printed {text!r}: {''.join(seen)}")


def test_ctrl_c_prints_how_to_resume_and_removes_its_temporary_folders(
    workspace: Workspace, tmp_path: Path
) -> None:
    workspace.branch("candidate/slow", {"solution/predict.py": "import time\ntime.sleep(4)\nprint(0.6)\n"})
    workspace.branch("candidate/zlast", {"solution/predict.py": predict("0.7")})
    temp = tmp_path / "tmp"
    temp.mkdir()
    run = proctor("campaign", "--repo", str(workspace.root), "--campaign-id", "i1", "--parallel", "1",
                  env={"TMPDIR": str(temp)})  # fmt: skip
    _wait_for(run, "baseline HEAD")
    assert [p.name for p in temp.iterdir() if p.name.startswith("proctor-campaign-i1-")]
    os.killpg(run.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
    _, rest = run.communicate(timeout=120)
    assert run.returncode == 130
    assert f"continue with: proctor campaign --repo {workspace.root} --resume --campaign-id i1" in rest, rest
    assert "Traceback" not in rest
    assert not [p for p in temp.iterdir() if p.name.startswith("proctor-campaign-")]
    resumed = proctor("campaign", "--repo", str(workspace.root), "--resume", "--campaign-id", "i1",
                      "--format", "json", env={"TMPDIR": str(temp)})  # fmt: skip
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert {c["ref"] for c in json.loads(out)["candidates"]} == {"candidate/slow", "candidate/zlast"}


def test_a_later_campaign_removes_what_a_kill_9_left_and_only_that(
    workspace: Workspace, tmp_path: Path
) -> None:
    workspace.branch("candidate/slow", {"solution/predict.py": "import time\ntime.sleep(4)\nprint(0.6)\n"})
    temp = tmp_path / "tmp"
    temp.mkdir()
    foreign = temp / "proctor-campaign-not-ours"  # the prefix without Proctor's marker: never touched
    foreign.mkdir()
    run = proctor("campaign", "--repo", str(workspace.root), "--campaign-id", "k1", env={"TMPDIR": str(temp)})
    _wait_for(run, "baseline HEAD")
    os.killpg(run.pid, signal.SIGKILL)
    run.communicate(timeout=60)
    left = [p for p in temp.iterdir() if p.name.startswith("proctor-campaign-k1-")]
    assert left and (left[0] / ".proctor-work-root").is_file()
    later = proctor("campaign", "--repo", str(workspace.root), "--campaign-id", "k2", "--format", "json",
                    env={"TMPDIR": str(temp)})  # fmt: skip
    _, err = later.communicate(timeout=300)
    assert later.returncode == 0, err
    assert not any(p.exists() for p in left)
    assert foreign.is_dir()


def test_verify_and_campaign_treat_an_untracked_result_json_alike(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace
    ws.branch("candidate/a", {"solution/predict.py": predict("0.7")})
    ws.write("kapso_evaluation/result.json", '{"score": 0.99}')  # left by a run by hand, not committed
    main(["verify", str(ws.root), "--runs", "1", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    runs = next(c for c in report["clauses"] if c["id"] == "runs")
    assert "IN006" not in runs["detail"] and runs["status"] == "pass"
    main(["verify", str(ws.root), "--runs", "1"])
    assert "note: ignored the untracked kapso_evaluation/result.json" in capsys.readouterr().out
    assert main(["campaign", "--repo", str(ws.root), "--campaign-id", "u1", "--format", "json"]) == 0
    capsys.readouterr()

    ws.commit_all("commit the stale result.json")  # now it is part of the baseline: both refuse
    assert main(["verify", str(ws.root), "--runs", "1", "--format", "json"]) == 1
    runs = next(c for c in json.loads(capsys.readouterr().out)["clauses"] if c["id"] == "runs")
    assert runs["status"] == "fail" and "IN006" in runs["detail"]
    assert main(["campaign", "--repo", str(ws.root), "--campaign-id", "u2"]) == 2
    assert "IN006: refusing to launch" in capsys.readouterr().err


def test_judge_free_without_an_endpoint_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("items.jsonl").write_text('{"input": "q", "output": "a"}\n', encoding="utf-8")
    assert main(["judge", "--input", "items.jsonl", "--free"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--free" in err and "no --base-url" in err


def test_user_facing_text_never_cites_the_spec() -> None:
    texts = {"README.md": (REPO_ROOT / "README.md").read_text(encoding="utf-8")}
    for doc in sorted((REPO_ROOT / "docs").glob("*.md")):
        texts[str(doc.relative_to(REPO_ROOT))] = doc.read_text(encoding="utf-8")
    rules = subprocess.run(
        [sys.executable, "-m", "core", "rule", "--all"], capture_output=True, text=True, check=True
    )
    texts["proctor rule --all"] = rules.stdout
    for command in ("check", "verify", "guard", "campaign", "judge", "init", "report", "registry"):
        helped = subprocess.run(
            [sys.executable, "-m", "core", command, "--help"], capture_output=True, text=True, check=False
        )
        texts[f"proctor {command} --help"] = helped.stdout
    cited = [name for name, text in texts.items() if "SPEC §" in text or "SPEC.md" in text]
    assert cited == []
