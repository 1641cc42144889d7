"""Every exception class lives in `core/errors.py` and is drawn in its docstring; errors carry their context."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

import core.errors
from core.errors import GitError, ProctorError
from core.integrity.git import resolve_commit, run_git

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
