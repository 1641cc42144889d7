"""Test helpers: git repositories built by the tests, and Kapso 0.7.10's integrity modules loaded directly.

Kapso's `kapso/execution/evaluation_integrity.py` and `evaluation_maintainer/registry.py` need only the stdlib,
so they are loaded from their files (importing the `kapso` package would pull its heavy dependencies).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from core.integrity.git import run_git

IDENTITY = (
    "-c",
    "user.name=Proctor Test",
    "-c",
    "user.email=test@proctor.invalid",
    "-c",
    "commit.gpgsign=false",
)


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    return run_git(repo, *IDENTITY, *args, input=input)


def init_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    return path


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "--all", "--force")
    git(repo, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def _kapso_file(relative: str) -> Path | None:
    for entry in sys.path:
        candidate = Path(entry) / "kapso" / relative
        if candidate.is_file():
            return candidate
    return None


def _load(relative: str, name: str) -> ModuleType | None:
    path = _kapso_file(relative)
    if path is None:
        return None
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def need(module: ModuleType | None, what: str) -> ModuleType:
    """Skip when Kapso is not installed, except in CI (CI=true), where its absence is a failure."""
    if module is None:
        message = f"leeroo-kapso==0.7.10 is not installed ({what}); `make install` installs it"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return module


KAPSO_INTEGRITY = _load("execution/evaluation_integrity.py", "_kapso_evaluation_integrity")
KAPSO_REGISTRY = _load("execution/evaluation_maintainer/registry.py", "_kapso_evaluation_registry")
