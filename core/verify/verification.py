"""One `proctor verify` run: refuse bad input, copy the workspace, run the evaluator, judge every clause.

A `result.json` already in the suite is refused before anything runs, exactly as a campaign refuses to launch
(IN006), unless git shows it untracked: a campaign measures commits only, so it is ignored with a note.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Literal

from core.config import Config
from core.errors import GitError, ProctorError, WorkspaceError
from core.integrity.git import run_git
from core.interpreter import find_python
from core.run.isolation import resolve_holdout
from core.runner import SandboxChoice, SandboxLevel, choose_sandbox
from core.scoreline import Score
from core.verify.integrity_clauses import fails_loudly_clause, isolation_clause, stray_writes_clause
from core.verify.report import ClauseResult, VerifyReport, refused_report
from core.verify.run_clauses import (
    deterministic_clause,
    fast_mode_clause,
    metric_line_clause,
    result_json_clause,
    runs_clause,
    time_budget_clause,
)
from core.verify.scratch import ScratchWorkspace, copy_workspace, relative_inside
from core.verify.suite_hashing import suite_hashes

__all__ = ["untracked_in_git", "verify_workspace"]


def verify_workspace(
    workspace: Path, config: Config, runs: int = 2, sandbox: SandboxLevel | SandboxChoice = "auto"
) -> VerifyReport:
    """Run the evaluator in a copy of `workspace` and report every clause of SPEC §3.3, in order."""
    started = time.monotonic()
    workspace = Path(workspace)
    if not workspace.is_dir():
        raise WorkspaceError(
            f"workspace {str(workspace)!r} does not exist or is not a directory", path=workspace
        )
    if runs < 1:
        raise ProctorError(f"--runs must be at least 1, got {runs}")
    choice = sandbox if isinstance(sandbox, SandboxChoice) else choose_sandbox(sandbox)
    suite_rel = relative_inside(workspace, config.evaluation_dir, "evaluation_dir", directory=True)
    if config.entry_point.strip():
        relative_inside(workspace, config.entry_point.strip(), "entry_point")
    holdout = resolve_holdout(config.holdout_dir, workspace)
    python = find_python(config.python, workspace.resolve())
    result_rel = f"{suite_rel}/result.json"
    stale = workspace / result_rel
    notes: list[str] = []
    if stale.is_file() or stale.is_symlink():
        if not untracked_in_git(workspace, result_rel):
            return refused_report(workspace, config.command, choice, result_rel, started)
        notes.append(
            f"ignored the untracked {result_rel} (left by an earlier run), as a campaign does: it measures "
            "commits only. Add result.json to .gitignore"
        )
    with tempfile.TemporaryDirectory(prefix="proctor-verify-") as scratch:
        copy = Path(scratch) / (workspace.resolve().name or "workspace")
        copy_workspace(workspace, copy)
        (copy / result_rel).unlink(missing_ok=True)
        clauses, metric = _verify_copy(
            ScratchWorkspace(copy, config, choice, holdout, python, origin=workspace), runs
        )
    verdict: Literal["pass", "fail"] = "fail" if any(c.status == "fail" for c in clauses) else "pass"
    return VerifyReport(
        workspace,
        verdict,
        metric,
        tuple(clauses),
        time.monotonic() - started,
        choice,
        config.command,
        tuple(notes),
        python,
    )


def untracked_in_git(workspace: Path, rel: str) -> bool:
    """True when `workspace` is a git work tree and `rel` is not committed there (a campaign never sees it)."""
    try:
        if run_git(workspace, "rev-parse", "--is-inside-work-tree").strip() != "true":
            return False
        return run_git(workspace, "ls-files", "-z", "--", rel).strip("\0") == ""
    except GitError:
        return False


def _verify_copy(ws: ScratchWorkspace, runs: int) -> tuple[list[ClauseResult], Score | None]:
    """Every run in the order the clauses need them; the clauses in the SPEC's order."""
    before = suite_hashes(ws.suite) if ws.suite.is_dir() else None
    full = [ws.run()]
    first = full[0]
    result_json = result_json_clause(ws, first)
    if first.score is not None:
        full.extend(ws.run() for _ in range(runs - 1))
    fast = ws.run(["--fast"])
    loud = fails_loudly_clause(ws)
    after = suite_hashes(ws.suite) if ws.suite.is_dir() else None
    clauses = [
        runs_clause(ws, first, len(full)),
        metric_line_clause(first),
        result_json,
        deterministic_clause(ws, full, runs),
        fast_mode_clause(fast),
        loud,
        time_budget_clause(ws, full),
        stray_writes_clause(ws, before, after),
        isolation_clause(ws),
    ]
    return clauses, first.score
