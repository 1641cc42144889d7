"""The clauses about what a candidate could get away with: a broken candidate must fail the run
(`fails-loudly`), the runs must leave the suite as it was (`no-stray-writes`), and candidate code must run
in its own sandbox, not inside the evaluator (`isolation`)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from core.errors import ProctorError
from core.integrity.classify import SOURCE_SUFFIXES, source_suffix
from core.integrity.suite_diff import suite_diff
from core.verify.report import ClauseResult
from core.verify.scratch import ScratchWorkspace
from core.verify.suite_hashing import is_source_file

__all__ = ["fails_loudly_clause", "isolation_clause", "stray_writes_clause"]

_GARBAGE_PY = """#!/usr/bin/env python3
# Written by `proctor verify` (fails-loudly): a malformed submission that prints garbage and exits 0.
import sys

print("proctor-garbage: this is not a valid submission")
print("nan,inf,-,,,")
sys.exit(0)
"""
_GARBAGE_SH = """#!/bin/sh
# Written by `proctor verify` (fails-loudly): a malformed submission that prints garbage and exits 0.
echo "proctor-garbage: this is not a valid submission"
echo "nan,inf,-,,,"
exit 0
"""

_READ_ONLY_WRITE = re.compile(r"Read-only file system: '([^']+)'")


def fails_loudly_clause(ws: ScratchWorkspace) -> ClauseResult:
    """Replace the entry point with garbage that exits 0 and run once: the evaluator must fail, loudly."""
    entry_rel = ws.config.entry_point.strip()
    if not entry_rel:
        return ClauseResult(
            "fails-loudly",
            "skip",
            "no entry_point configured (set `entry_point` in proctor.toml to check it)",
        )
    entry = ws.root / entry_rel
    if entry.is_dir() or not (entry.is_file() or entry.is_symlink()):
        what = "is a directory" if entry.is_dir() else "does not exist"
        return ClauseResult(
            "fails-loudly", "fail", f"entry_point {entry_rel!r} {what} in the workspace; name a file"
        )
    executable = entry.is_file() and bool(entry.stat().st_mode & stat.S_IXUSR)
    entry.unlink()
    garbage = _GARBAGE_PY if entry.suffix == ".py" else _GARBAGE_SH
    entry.write_text(garbage, encoding="utf-8")
    if executable or entry.suffix != ".py":
        entry.chmod(0o755)
    run = ws.run()
    what = f"with entry_point {entry_rel!r} replaced by a program that prints garbage and exits 0"
    if run.result is None:
        return ClauseResult("fails-loudly", "fail", f"{what}, the evaluator could not start: {run.error}")
    result = run.result
    if result.timed_out:
        return ClauseResult("fails-loudly", "fail", f"{what}, the evaluator hung until the timeout")
    score = run.score
    if result.returncode == 0:
        shown = f" and printed {score.line.strip()!r}" if score else ""
        return ClauseResult(
            "fails-loudly",
            "fail",
            f"{what}, the evaluator exited 0{shown}: a broken candidate must fail the run, not get a score",
        )
    if score is not None:
        return ClauseResult(
            "fails-loudly",
            "fail",
            f"{what}, the evaluator exited {result.returncode} but still printed {score.line.strip()!r} "
            "as its last line",
        )
    reason = result.failure_reason()
    if not (result.stderr.strip() or result.stdout.strip()):
        return ClauseResult(
            "fails-loudly",
            "fail",
            f"{what}, the evaluator exited {result.returncode} without printing a reason",
        )
    return ClauseResult("fails-loudly", "pass", f"a garbage entry point fails the run: {reason}")


def stray_writes_clause(
    ws: ScratchWorkspace, before: dict[str, str] | None, after: dict[str, str] | None
) -> ClauseResult:
    if before is None or after is None:
        return ClauseResult("no-stray-writes", "skip", f"no suite directory {ws.suite_rel}/ in the workspace")
    ignored = {"result.json"}
    entry = ws.config.entry_point.strip()
    if entry and Path(entry).as_posix().startswith(ws.suite_rel + "/"):
        ignored.add(
            Path(entry).as_posix()[len(ws.suite_rel) + 1 :]
        )  # replaced by fails-loudly, not by the evaluator
    diff = suite_diff(before, after, ignored)  # the comparison IN009 makes after a campaign run
    changed, deleted = list(diff.changed), list(diff.deleted)
    new_source = [p for p in diff.added if is_source_file(ws.suite / p)]
    refused = _refused_suite_writes(ws, ignored)
    changed += sorted(p for p in refused if p in before and p not in changed)
    new_source += sorted(p for p in refused if p not in before and source_suffix(p) in SOURCE_SUFFIXES)
    problems = (
        ["the suite is read-only while the evaluator runs, and a run failed writing into it"]
        if refused
        else []
    )
    for label, paths in (("changed", changed), ("deleted", deleted), ("new source file", new_source)):
        if paths:
            shown = ", ".join(f"{ws.suite_rel}/{p}" for p in paths[:5]) + (" ..." if len(paths) > 5 else "")
            problems.append(f"{label}: {shown}")
    if problems:
        return ClauseResult(
            "no-stray-writes", "fail", f"after {ws.runs} runs the suite differs: " + "; ".join(problems)
        )
    new_other = len(diff.added)
    extra = f"; {new_other} new non-source artifact(s) allowed" if new_other else ""
    return ClauseResult(
        "no-stray-writes",
        "pass",
        f"after {ws.runs} runs the suite's {len(before)} file(s) are byte-identical (result.json ignored{extra})",
    )


def _refused_suite_writes(ws: ScratchWorkspace, ignored: set[str]) -> list[str]:
    """Suite paths a run tried to write (the sandbox refused: the error names them on stderr)."""
    suite = os.path.realpath(ws.suite)
    found = []
    for result in ws.results:
        for path in _READ_ONLY_WRITE.findall(result.stderr):
            real = os.path.realpath(path) if os.path.isabs(path) else os.path.realpath(ws.root / path)
            rel = os.path.relpath(real, suite)
            if not rel.startswith("..") and rel not in ignored and rel not in found:
                found.append(Path(rel).as_posix())
    return found


def isolation_clause(ws: ScratchWorkspace) -> ClauseResult:
    """Pass when every run started the candidate only in its own sandbox (SPEC §4.5), else warn why not."""
    reasons = [r.not_isolated for r in ws.results if r.not_isolated]
    in_process = _in_process_findings(ws)
    if in_process:
        reasons.insert(0, f"the evaluator runs candidate code in its own process (EV014: {in_process})")
    if reasons:
        return ClauseResult("isolation", "warn", f"not isolated: {reasons[0]}")
    if not ws.results:
        return ClauseResult("isolation", "skip", "not checked: the evaluator could not start")
    launches = sum(r.candidate_launches for r in ws.results)
    if launches == 0:
        entry = ws.config.entry_point.strip()
        return ClauseResult(
            "isolation",
            "warn",
            f"not isolated: no run started {entry} (the configured entry_point), so whatever candidate code "
            "the evaluator ran, it ran inside the evaluator's sandbox",
        )
    return ClauseResult(
        "isolation",
        "pass",
        f"every candidate process ran in its own sandbox ({launches} launch(es) of "
        f"{ws.config.entry_point.strip()} via {ws.choice.mechanism})",
    )


def _in_process_findings(ws: ScratchWorkspace) -> str:
    """Where EV014 finds the evaluator importing or executing candidate code ('' when nowhere)."""
    from core.check import check_paths  # the rules pipeline loads when verify runs, not on import

    try:
        found = check_paths(workspace=ws.root, config=ws.config, select=["EV014"]).diagnostics
    except ProctorError:
        return ""
    return "; ".join(f"{d.path}:{d.range.start.line + 1}" for d in found[:3])
