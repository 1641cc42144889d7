"""Every exception class lives in `core/errors.py` and is drawn in its docstring; errors carry their context."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

import core.errors
from core.campaign.setup import workspace_root
from core.campaign.state import load_state, state_path
from core.check import check_targets, read_text
from core.cli import main as cli_main
from core.config import Config
from core.errors import (
    CampaignError,
    GitError,
    InterpreterError,
    JobQueueError,
    ProctorError,
    RegistryError,
    RunnerError,
    StateDirError,
    WorkspaceError,
    redact_argv,
    redact_url,
)
from core.integrity.git import resolve_commit, run_git
from core.interpreter import find_python
from core.jobs.backend import open_huey
from core.jobs.queue import JobQueue
from core.registry import load_registry, registry_path
from core.runner import run_evaluator
from core.state_root import ENV as STATE_DIR_ENV
from core.state_root import ensure_writable
from core.verify import verify_workspace
from core.verify.scratch import relative_inside

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "lsp_server", "github_app")


def _exception_classes() -> list[tuple[str, str]]:
    """(file, class name) of every class in the tree whose bases name an Exception or Error."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and any(
                    ast.unparse(base).endswith(("Exception", "Error"))
                    or ast.unparse(base) in _public_errors()
                    for base in node.bases
                ):
                    found.append((path.relative_to(ROOT).as_posix(), node.name))
    return found


def _public_errors() -> set[str]:
    return {
        name
        for name, value in vars(core.errors).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    }


def test_every_exception_class_is_defined_in_core_errors() -> None:
    elsewhere = [
        (path, name)
        for path, name in _exception_classes()
        if path != "core/errors.py" and not name.startswith("_")
    ]
    assert elsewhere == []


def test_the_docstring_draws_every_class() -> None:
    doc = core.errors.__doc__ or ""
    missing = sorted(name for name in _public_errors() if f"{name}" not in doc)
    private = sorted(name for _, name in _exception_classes() if name.startswith("_") and name not in doc)
    assert (missing, private) == ([], [])


def test_a_failing_git_command_carries_argv_returncode_and_stderr(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with pytest.raises(GitError) as caught:
        run_git(tmp_path, "cat-file", "-p", "no-such-object")
    error = caught.value
    assert error.argv[0] == "git" and error.argv[-3:] == ("cat-file", "-p", "no-such-object")
    assert error.returncode not in (None, 0)
    assert "no-such-object" in error.stderr
    assert "\n" not in str(error) and str(error).startswith(f"git cat-file failed in {tmp_path}")


def test_a_missing_ref_is_one_line_naming_ref_and_repository(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with pytest.raises(GitError) as caught:
        resolve_commit(tmp_path, "nope")
    assert str(caught.value) == f"ref 'nope' does not exist in {tmp_path}"
    assert caught.value.argv[-1] == "nope^{commit}" and caught.value.returncode != 0


def test_every_public_error_is_a_proctor_error_or_named_outside_the_tree() -> None:
    outside = {"UsageError", "AnswerError", "TransientFailure", "ForeignNodeError", "Locked"}
    for name in _public_errors() - outside:
        assert issubclass(getattr(core.errors, name), ProctorError), name


# -- the fields at real raise sites: what a catcher (a log line, a check run, a retry) reads without parsing str()


def test_a_missing_evaluator_program_carries_the_command_redacted_and_the_directory(tmp_path: Path) -> None:
    with pytest.raises(RunnerError) as caught:
        run_evaluator(
            "./no-such-evaluator --api-key sk-live-123 --queue redis://:hunter2@q:6379/0",
            tmp_path,
            timeout_s=5,
            sandbox="process",
        )
    error = caught.value
    assert error.argv == ("./no-such-evaluator", "--api-key", "***", "--queue", "redis://***@q:6379/0")
    assert error.cwd == tmp_path
    assert "sk-live-123" not in repr(vars(error)) and "hunter2" not in repr(vars(error))
    assert (
        str(error)
        == f"evaluator program './no-such-evaluator' does not exist or is not executable (in {tmp_path})"
    )


def test_a_missing_run_directory_names_it_and_no_command(tmp_path: Path) -> None:
    with pytest.raises(RunnerError) as caught:
        run_evaluator("python evaluate.py", tmp_path / "gone", timeout_s=5, sandbox="process")
    assert (caught.value.cwd, caught.value.argv) == (tmp_path / "gone", ())


def test_an_unreadable_workspace_file_carries_its_path(tmp_path: Path) -> None:
    binary = tmp_path / "evaluate.py"
    binary.write_bytes(b"print(1)\x00")
    with pytest.raises(WorkspaceError) as caught:
        read_text(binary, "evaluate.py")
    assert caught.value.path == binary and str(caught.value).startswith("evaluate.py: binary file")
    with pytest.raises(WorkspaceError) as missing:
        check_targets([tmp_path / "nope.py"], cwd=tmp_path)
    assert missing.value.path == tmp_path / "nope.py"


def test_proctor_check_on_a_missing_file_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["check", str(tmp_path / "nope.py")]) == 2
    err = capsys.readouterr().err
    assert err == f"proctor: error: {tmp_path / 'nope.py'}: no such file or directory\n"


def test_a_queue_url_error_never_carries_the_password() -> None:
    with pytest.raises(JobQueueError) as caught:
        open_huey("amqp://user:hunter2@broker:5672/", "proctor")
    assert caught.value.url == "amqp://***@broker:5672/"
    assert "hunter2" not in str(caught.value)


def test_an_unreachable_redis_queue_is_named_without_its_password() -> None:
    pytest.importorskip("redis")
    queue = JobQueue("redis://:hunter2@127.0.0.1:9/0")
    with pytest.raises(JobQueueError) as caught:
        queue.check()
    assert caught.value.url == "redis://***@127.0.0.1:9/0"
    assert "hunter2" not in str(caught.value) and "cannot be reached" in str(caught.value)


def test_an_interpreter_that_cannot_run_is_named(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(InterpreterError) as caught:
        find_python(str(fake), tmp_path)
    assert caught.value.program == fake and "is not a working Python 3" in str(caught.value)


def test_a_state_dir_that_cannot_be_made_is_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state directory should be")
    monkeypatch.setenv(STATE_DIR_ENV, str(blocker / "inner"))
    with pytest.raises(StateDirError) as caught:
        ensure_writable(tmp_path)
    assert caught.value.path == blocker / "inner"


def test_a_broken_registry_and_checkpoint_carry_their_files(tmp_path: Path) -> None:
    registry = registry_path(tmp_path)
    registry.parent.mkdir(parents=True, exist_ok=True)
    registry.write_text("{not json")
    with pytest.raises(RegistryError) as bad_registry:
        load_registry(tmp_path)
    assert bad_registry.value.path == registry
    registry.write_text('[{"evaluator_id": "e1", "version": 0}]')
    with pytest.raises(RegistryError) as bad_entry:
        load_registry(tmp_path)
    assert bad_entry.value.path == registry
    assert str(bad_entry.value) == f"{registry} [0]: `version` must be a positive integer, found 0"
    with pytest.raises(CampaignError) as no_checkpoint:
        load_state(tmp_path, "c1")
    assert no_checkpoint.value.path == state_path(tmp_path, "c1")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:pw@host:6379/0", "redis://***@host:6379/0"),
        ("sqlite:////tmp/q.db", "sqlite:////tmp/q.db"),
        ("https://judge.example/v1?api_key=k1&region=eu", "https://judge.example/v1?api_key=***&region=eu"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("not a url", "not a url"),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_redact_argv_hides_secret_flags_in_both_spellings() -> None:
    argv = ["eval", "--token=t1", "--access-token", "t2", "--n", "3", "https://u:p@h/x"]
    assert redact_argv(argv) == (
        "eval",
        "--token=***",
        "--access-token",
        "***",
        "--n",
        "3",
        "https://***@h/x",
    )


def test_verify_and_campaign_name_the_workspace_they_could_not_use(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError) as missing:
        verify_workspace(tmp_path / "gone", Config())
    assert missing.value.path == tmp_path / "gone"
    with pytest.raises(WorkspaceError) as escaping:
        relative_inside(tmp_path, "../elsewhere/result.json", "result_path")
    assert escaping.value.path == Path("../elsewhere/result.json")
    plain = tmp_path / "not-a-repo"
    plain.mkdir()
    with pytest.raises(CampaignError) as not_git:
        workspace_root(plain)
    assert not_git.value.path == plain and "is not a git repository" in str(not_git.value)


def test_a_failing_fetch_from_a_url_with_credentials_keeps_them_out_of_argv(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with pytest.raises(GitError) as caught:
        run_git(tmp_path, "fetch", "--quiet", "http://bot:hunter2@127.0.0.1:9/repo.git")
    error = caught.value
    assert error.argv[-1] == "http://***@127.0.0.1:9/repo.git" and error.returncode != 0
    assert "hunter2" not in f"{error} {error.stderr} {error.argv}"  # git itself drops them from its message
