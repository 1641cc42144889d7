"""Workspaces with an evaluator (runs in E) and an entry point (runs in C), under each sandbox backend."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.config import load_config
from core.errors import RunnerError
from core.run.isolation import Isolation, resolve_holdout
from core.runner import RunResult, SandboxChoice, choose_sandbox, reset_probe_cache, run_evaluator
from core.sandbox import BACKEND_ENV

IN_CI = os.environ.get("CI") == "true"


@pytest.fixture(params=["bwrap", "unshare"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[SandboxChoice]:
    """The namespace sandbox through one mechanism (skip where it does not work here; fail under CI)."""
    monkeypatch.setenv(BACKEND_ENV, str(request.param))
    reset_probe_cache()
    try:
        choice = choose_sandbox("namespace")
    except RunnerError as exc:
        if IN_CI:
            pytest.fail(f"CI=true but the {request.param} sandbox does not work: {exc}")
        pytest.skip(f"the {request.param} sandbox does not work here: {exc}")
    if not choice.read_only_fs:
        if IN_CI:
            pytest.fail(f"CI=true but {request.param} only isolates the network here: {choice.reason}")
        pytest.skip(f"{request.param} only isolates the network here: {choice.reason}")
    yield choice
    monkeypatch.delenv(BACKEND_ENV)
    reset_probe_cache()


@dataclass
class Workspace:
    root: Path
    holdout: Path

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def run(self, choice: SandboxChoice | str, *, timeout_s: float = 60) -> RunResult:
        config = load_config(self.root).config
        isolation = Isolation.from_config(config, resolve_holdout(config.holdout_dir, self.root))
        return run_evaluator(
            config.command, self.root, timeout_s=timeout_s, sandbox=choice, isolation=isolation
        )


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    """A workspace with protected inputs (data, brief, a protected path) and a hold-out dir outside it."""
    root, holdout = tmp_path / "ws", tmp_path / "holdout"
    holdout.mkdir()
    (holdout / "labels.csv").write_text("id,label\n1,1\n", encoding="utf-8")
    ws = Workspace(root, holdout)
    ws.write(
        "proctor.toml",
        f"""
        entry_point = "solution/predict.py"
        holdout_dir = "{holdout}"
        protected_paths = ["secrets/answers.txt"]
        candidate_reads = ["kapso_datasets/public.csv"]
        """,
    )
    ws.write("kapso_datasets/answers.csv", "id,label\n1,1\n")
    ws.write("kapso_datasets/public.csv", "id\n1\n")
    ws.write("secrets/answers.txt", "42\n")
    ws.write("brief.md", "# Task\n")
    ws.write("extra.brief.md", "# More\n")
    return ws
