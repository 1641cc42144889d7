"""Two sandboxes per run (README "Isolation"): the stub is transparent to the evaluator, the candidate's
sandbox sees nothing protected, and nothing in it outlives its run. Each test runs under bwrap and unshare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import WorkspaceError
from core.run.isolation import resolve_holdout
from core.runner import SandboxChoice
from tests.core.run.conftest import Workspace

ECHO_EVALUATOR = """
import json, os, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOLDOUT = Path(os.environ["PROCTOR_HOLDOUT_DIR"])
done = subprocess.run(
    [sys.executable, "predict.py", "a b", "--x"],
    cwd=ROOT / "solution",
    input="from stdin\\n",
    capture_output=True,
    text=True,
    env={**os.environ, "CANDIDATE_VAR": "v1"},
)
print(json.dumps({"rc": done.returncode, "out": done.stdout, "err": done.stderr,
                  "holdout": (HOLDOUT / "labels.csv").is_file()}))
print("score: 1")
"""

ECHO_CANDIDATE = """
import json, os, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
holdout = os.environ["PROCTOR_HOLDOUT_DIR"]
paths = ["kapso_datasets/answers.csv", "kapso_evaluation/evaluate.py", "brief.md", "extra.brief.md",
         "secrets/answers.txt", "kapso_datasets/public.csv", "proctor.toml"]
seen = {rel: (ROOT / rel).exists() for rel in paths}
seen["holdout"] = os.path.exists(holdout)
try:
    (ROOT / "kapso_datasets" / "public.csv").write_text("changed")
    seen["public writable"] = True
except OSError:
    seen["public writable"] = False
(ROOT / "solution" / "left.txt").write_text("C's copy only")
print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "var": os.environ.get("CANDIDATE_VAR"),
                  "stdin": sys.stdin.read(), "ppid": os.getppid(), "seen": seen,
                  "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}))
print("to stderr", file=sys.stderr)
sys.exit(3)
"""


def _report(stdout: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(stdout.splitlines()[0])
    return data


def test_the_stub_passes_argv_cwd_env_stdin_and_status_and_c_sees_nothing_protected(
    workspace: Workspace, backend: SandboxChoice
) -> None:
    workspace.write("kapso_evaluation/evaluate.py", ECHO_EVALUATOR)
    workspace.write("solution/predict.py", ECHO_CANDIDATE)
    result = workspace.run(backend)
    assert result.ok, result.stderr
    report = _report(result.stdout)
    assert report["rc"] == 3 and report["err"] == "to stderr\n" and report["holdout"] is True
    seen = json.loads(str(report["out"]))
    assert seen["argv"] == ["a b", "--x"] and seen["var"] == "v1" and seen["stdin"] == "from stdin\n"
    assert seen["cwd"] == str((workspace.root / "solution").resolve())
    assert seen["seen"] == {
        "kapso_datasets/answers.csv": False,
        "kapso_evaluation/evaluate.py": False,
        "brief.md": False,
        "extra.brief.md": False,
        "secrets/answers.txt": False,
        "kapso_datasets/public.csv": True,  # candidate_reads: visible, read-only
        "proctor.toml": True,
        "holdout": False,
        "public writable": False,
    }
    # Its own pid namespace: no parent it can name, and no process of the evaluator's or Proctor's.
    assert seen["ppid"] in (0, 1) and max(seen["pids"]) < 10
    assert not (workspace.root / "solution" / "left.txt").exists()  # it wrote to its own copy
    assert result.not_isolated == "" and result.candidate_launches == 1


SIGNAL_EVALUATOR = """
import subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
done = subprocess.run([sys.executable, str(ROOT / "solution" / "predict.py")])
print(f"returncode: {done.returncode}")
"""


def test_a_signal_death_in_c_is_the_same_signal_for_the_evaluator(
    workspace: Workspace, backend: SandboxChoice
) -> None:
    workspace.write("kapso_evaluation/evaluate.py", SIGNAL_EVALUATOR)
    workspace.write("solution/predict.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    result = workspace.run(backend)
    assert result.stdout.strip() == "returncode: -9", result.stderr


def test_an_evaluator_that_kills_itself_is_reported_as_killed(
    workspace: Workspace, backend: SandboxChoice
) -> None:
    """The `unshare` fallback once reported this as `exit 0` (the evaluator ran as its namespace's pid 1)."""
    workspace.write(
        "kapso_evaluation/evaluate.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )
    workspace.write("solution/predict.py", "print(1)\n")
    result = workspace.run(backend)
    assert not result.ok and "SIGKILL" in result.failure_reason()


STUB_KILLED_EVALUATOR = """
import os, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
marker = Path(os.environ["TMPDIR"]) / "marker"
try:
    subprocess.run([sys.executable, str(ROOT / "solution" / "predict.py"), str(marker)], timeout=1.5)
    print("finished")
except subprocess.TimeoutExpired:
    print("timed out")
time.sleep(3)
print(f"marker: {marker.exists()}")
"""

LATE_WRITER = """
import os, sys, time
time.sleep(2.5)
open(sys.argv[1], "w").write("still alive")
"""

DAEMON = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1.5)
        open(sys.argv[1], "w").write("the daemon outlived its run")
    os._exit(0)
print("started a daemon")
"""

DAEMON_EVALUATOR = """
import os, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
marker = Path(os.environ["TMPDIR"]) / "marker"
subprocess.run([sys.executable, str(ROOT / "solution" / "predict.py"), str(marker)], check=True)
time.sleep(3)
print(f"marker: {marker.exists()}")
"""


def test_a_killed_stub_kills_the_candidate(workspace: Workspace, backend: SandboxChoice) -> None:
    workspace.write("kapso_evaluation/evaluate.py", STUB_KILLED_EVALUATOR)
    workspace.write("solution/predict.py", LATE_WRITER)
    result = workspace.run(backend)
    assert result.stdout.split() == ["timed", "out", "marker:", "False"], result.stderr


def test_everything_in_the_candidate_sandbox_dies_with_its_run(
    workspace: Workspace, backend: SandboxChoice
) -> None:
    workspace.write("kapso_evaluation/evaluate.py", DAEMON_EVALUATOR)
    workspace.write("solution/predict.py", DAEMON)
    result = workspace.run(backend)
    assert result.stdout.splitlines()[-1] == "marker: False", result.stdout + result.stderr


EXPLICIT_EVALUATOR = """
import os, subprocess, sys

run = os.environ["PROCTOR_RUN_CANDIDATE"]
fast = subprocess.run([run, "--", sys.executable, "solution/predict.py", "0"], capture_output=True, text=True)
slow = subprocess.run([run, "--timeout", "1", "--", sys.executable, "solution/predict.py", "30"],
                      capture_output=True, text=True)
print(fast.returncode, fast.stdout.strip(), slow.returncode, "killed" in slow.stderr)
"""


def test_proctor_run_candidate_runs_argv_in_c_with_a_timeout(
    workspace: Workspace, backend: SandboxChoice
) -> None:
    workspace.write("kapso_evaluation/evaluate.py", EXPLICIT_EVALUATOR)
    workspace.write(
        "solution/predict.py",
        "import os, sys, time\ntime.sleep(float(sys.argv[1]))\n"
        "print(os.path.exists('kapso_datasets/answers.csv'))\nsys.exit(5)\n",
    )
    result = workspace.run(backend)
    assert result.stdout.split() == ["5", "False", "124", "True"], result.stderr
    assert result.candidate_launches == 2


IN_PROCESS_EVALUATOR = """
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("predict", ROOT / "solution" / "predict.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(f"score: {module.answer()}")
"""


def test_an_imported_entry_point_still_works_and_is_reported_not_isolated(
    workspace: Workspace, backend: SandboxChoice
) -> None:
    workspace.write("kapso_evaluation/evaluate.py", IN_PROCESS_EVALUATOR)
    workspace.write("solution/predict.py", "def answer() -> float:\n    return 0.5\n")
    result = workspace.run(backend)
    assert result.stdout.strip() == "score: 0.5", result.stderr
    assert result.not_isolated is not None and "imports the entry point" in result.not_isolated


def test_the_process_level_says_not_isolated_and_run_candidate_still_runs(workspace: Workspace) -> None:
    workspace.write("kapso_evaluation/evaluate.py", EXPLICIT_EVALUATOR)
    workspace.write("solution/predict.py", "import sys\nprint('ran')\nsys.exit(5)\n")
    result = workspace.run("process")
    assert result.stdout.split()[:2] == ["5", "ran"], result.stderr
    assert result.not_isolated is not None and "`process` level" in result.not_isolated


def test_a_holdout_inside_the_workspace_is_refused(workspace: Workspace, tmp_path: Path) -> None:
    inside = workspace.root / "labels"
    inside.mkdir()
    with pytest.raises(WorkspaceError, match="inside the workspace"):
        resolve_holdout(str(inside), workspace.root)
    with pytest.raises(WorkspaceError, match="inside the workspace"):
        resolve_holdout("labels", workspace.root)
    assert resolve_holdout("../holdout", workspace.root) == str(workspace.holdout.resolve())
    with pytest.raises(WorkspaceError, match="not a directory"):
        resolve_holdout(str(tmp_path / "missing"), workspace.root)


def test_verify_refuses_a_holdout_inside_the_workspace(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from core.cli import main

    (workspace.root / "labels").mkdir()
    monkeypatch.setenv("PROCTOR_HOLDOUT_DIR", str(workspace.root / "labels"))
    workspace.write("kapso_evaluation/evaluate.py", "print('score: 1')\n")
    workspace.write("solution/predict.py", "print(1)\n")
    assert main(["verify", str(workspace.root)]) == 2
    err = capsys.readouterr().err
    assert "PROCTOR_HOLDOUT_DIR" in err and "inside the workspace" in err and "Traceback" not in err


SHELL_EVALUATOR = """
import subprocess

done = subprocess.run(["sh", "solution/run.sh", "x y"], capture_output=True, text=True)
print(done.returncode, done.stdout.split())
"""


def test_a_shell_entry_point_runs_in_c_too(workspace: Workspace, backend: SandboxChoice) -> None:
    workspace.write("proctor.toml", 'entry_point = "solution/run.sh"\n')
    workspace.write("kapso_evaluation/evaluate.py", SHELL_EVALUATOR)
    workspace.write(
        "solution/run.sh",
        'echo "got $1"\nif [ -e kapso_datasets/answers.csv ]; then echo seen; else echo hidden; fi\nexit 4\n',
    )
    result = workspace.run(backend)
    assert result.stdout.strip() == "4 ['got', 'x', 'y', 'hidden']", result.stderr
    assert result.candidate_launches == 1 and result.not_isolated == ""


def test_a_campaign_with_an_in_process_evaluator_says_not_isolated(
    workspace: Workspace, backend: SandboxChoice, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess

    from core.cli import main

    workspace.write("kapso_evaluation/evaluate.py", IN_PROCESS_EVALUATOR)
    workspace.write("solution/predict.py", "def answer() -> float:\n    return 0.5\n")
    workspace.write(".gitignore", ".proctor/\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=workspace.root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=workspace.root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=workspace.root, check=True)
    subprocess.run([*git, "checkout", "-qb", "candidate/a"], cwd=workspace.root, check=True)
    workspace.write("solution/predict.py", "def answer() -> float:\n    return 0.75\n")
    subprocess.run([*git, "commit", "-qam", "better"], cwd=workspace.root, check=True)
    assert main(["campaign", "--repo", str(workspace.root), "--format", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert board["isolation"]["isolated"] is False
    assert "imports the entry point" in board["isolation"]["not_isolated"][0]
    assert "imports the entry point" in board["candidates"][0]["not_isolated"]
    assert main(["campaign", "--repo", str(workspace.root), "--campaign-id", "text"]) == 0
    assert capsys.readouterr().out.startswith("NOT ISOLATED: the evaluator imports the entry point")


def test_an_interpreter_dir_that_shows_the_workspace_does_not_show_it_to_c(
    workspace: Workspace, backend: SandboxChoice, tmp_path: Path
) -> None:
    """An editable install puts the project's own root on the interpreter's path; bound read-only into C,
    it would show the real workspace, its data and .git. The workspace is hidden on top of it."""
    import dataclasses
    import shutil

    from core.config import load_config
    from core.run.isolation import Isolation
    from core.runner import run_evaluator
    from core.sandbox import Interpreter, proctor_interpreter

    origin = workspace.root
    workspace.write("kapso_evaluation/evaluate.py", SIGNAL_EVALUATOR)
    workspace.write(
        "solution/predict.py",
        f"import os, sys\nsys.exit(3 if os.path.exists({str(origin / 'kapso_datasets' / 'answers.csv')!r}) else 4)\n",
    )
    tree = tmp_path / "copy"
    shutil.copytree(origin, tree)
    config = load_config(tree).config
    mine = proctor_interpreter()
    editable = Interpreter(mine.executable, (*mine.read_only_dirs, str(origin)))
    hidden = Isolation.from_config(config, workspace=origin)
    for isolation, expected in ((dataclasses.replace(hidden, workspace=""), 3), (hidden, 4)):
        result = run_evaluator(
            config.command, tree, timeout_s=60, sandbox=backend, isolation=isolation, interpreter=editable
        )
        assert result.stdout.strip() == f"returncode: {expected}", result.stderr
