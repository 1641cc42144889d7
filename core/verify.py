"""`proctor verify`: check the evaluator contract (SPEC §3.3) by running the evaluator for real.

The workspace is never touched: it is copied (without .git, .venv, node_modules, .proctor and any
`__pycache__`) into a temp dir and every run happens there, in the same sandbox campaigns use (§4.3). The
clauses are reported in the SPEC's order, each `pass|fail|warn|skip` with a detail saying why.

A `result.json` already in the suite is refused before anything runs, exactly as a campaign refuses to launch
(IN006): `runs` and `result-json` fail with the reason and what to do (delete it), the other clauses are
skipped, and the verdict is `fail` (exit 1) so the JSON report still says which clause and why.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from core.config import Config
from core.errors import ProctorError, RunnerError, WorkspaceError
from core.integrity.classify import SOURCE_SUFFIXES, source_suffix
from core.integrity.suite_diff import suite_diff
from core.interpreter import ProjectPython, find_python
from core.run.isolation import Isolation, resolve_holdout
from core.runner import RunResult, SandboxChoice, SandboxLevel, choose_sandbox, run_evaluator
from core.scoreline import SCORE_LINE, Score, parse_stdout
from core.treewalk import walk

__all__ = [
    "CLAUSE_IDS",
    "ClauseResult",
    "VerifyReport",
    "is_source_file",
    "verify_workspace",
]

ClauseStatus = Literal["pass", "fail", "warn", "skip"]

CLAUSE_IDS = (
    "runs",
    "metric-line",
    "result-json",
    "deterministic",
    "fast-mode",
    "fails-loudly",
    "time-budget",
    "no-stray-writes",
    "isolation",
)

REQUIRED_RESULT_KEYS = ("evaluation_script_path", "evaluation_output", "score")
COPY_EXCLUDES = (".git", ".venv", "node_modules", ".proctor", "__pycache__")

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


@dataclass(frozen=True)
class ClauseResult:
    id: str
    status: ClauseStatus
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class VerifyReport:
    """What `proctor verify` found; `to_json()` is the stable `"schema": 1` document."""

    workspace: Path
    verdict: Literal["pass", "fail"]
    metric: Score | None
    clauses: tuple[ClauseResult, ...]
    duration_s: float
    sandbox: SandboxChoice
    command: str
    notes: tuple[str, ...] = ()
    python: ProjectPython | None = None

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def clause(self, clause_id: str) -> ClauseResult:
        for clause in self.clauses:
            if clause.id == clause_id:
                return clause
        raise KeyError(clause_id)

    def to_json(self) -> dict[str, Any]:
        metric = None if self.metric is None else {"name": self.metric.name, "value": self.metric.value}
        return {
            "schema": 1,
            "verdict": self.verdict,
            "metric": metric,
            "clauses": [clause.to_json() for clause in self.clauses],
            "duration_s": round(self.duration_s, 3),
            "interpreter": self.python.to_json() if self.python is not None else None,
        }


@dataclass(frozen=True)
class _Run:
    """One evaluator run, or the reason it could not start."""

    result: RunResult | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.ok

    @property
    def stdout(self) -> str:
        return self.result.stdout if self.result is not None else ""

    @property
    def score(self) -> Score | None:
        return parse_stdout(self.stdout).score if self.result is not None else None

    def why_failed(self) -> str:
        if self.result is None:
            return f"could not start: {self.error}"
        return self.result.failure_reason()


class _Workspace:
    """The temp copy verify runs in, with the config's paths resolved inside it."""

    def __init__(
        self,
        root: Path,
        config: Config,
        choice: SandboxChoice,
        holdout: str = "",
        python: ProjectPython | None = None,
        origin: Path | None = None,
    ) -> None:
        self.root = root
        self.interpreter = python.sandbox_interpreter() if python is not None else None
        self.config = config
        self.choice = choice
        self.isolation = Isolation.from_config(config, holdout, workspace=origin)
        self.results: list[RunResult] = []
        self.suite_rel = _relative_inside(root, config.evaluation_dir, "evaluation_dir", directory=True)
        self.suite = root / self.suite_rel
        self.result_rel = f"{self.suite_rel}/result.json"
        self.result_path = self.suite / "result.json"
        self.runs = 0

    def run(self, extra_args: Sequence[str] = ()) -> _Run:
        """A run from a clean slate: result.json from an earlier run must not be mistaken for this run's."""
        if self.result_path.is_file() or self.result_path.is_symlink():
            self.result_path.unlink()
        self.runs += 1
        try:
            result = run_evaluator(
                self.config.command,
                self.root,
                timeout_s=self.config.timeout_s,
                sandbox=self.choice,
                extra_args=extra_args,
                isolation=self.isolation,
                interpreter=self.interpreter,
            )
        except RunnerError as exc:
            return _Run(None, str(exc))
        self.results.append(result)
        return _Run(result)


def verify_workspace(
    workspace: Path, config: Config, runs: int = 2, sandbox: SandboxLevel | SandboxChoice = "auto"
) -> VerifyReport:
    """Run the evaluator in a copy of `workspace` and report every clause of SPEC §3.3, in order."""
    started = time.monotonic()
    workspace = Path(workspace)
    if not workspace.is_dir():
        raise WorkspaceError(f"workspace {str(workspace)!r} does not exist or is not a directory")
    if runs < 1:
        raise ProctorError(f"--runs must be at least 1, got {runs}")
    choice = sandbox if isinstance(sandbox, SandboxChoice) else choose_sandbox(sandbox)
    suite_rel = _relative_inside(workspace, config.evaluation_dir, "evaluation_dir", directory=True)
    if config.entry_point.strip():
        _relative_inside(workspace, config.entry_point.strip(), "entry_point")
    holdout = resolve_holdout(config.holdout_dir, workspace)
    python = find_python(config.python, workspace.resolve())
    result_rel = f"{suite_rel}/result.json"
    stale = workspace / result_rel
    notes: list[str] = []
    if stale.is_file() or stale.is_symlink():
        if not untracked_in_git(workspace, result_rel):
            return _refused(workspace, config, choice, result_rel, started)
        notes.append(
            f"ignored the untracked {result_rel} (left by an earlier run), as a campaign does: it measures "
            "commits only. Add result.json to .gitignore"
        )
    with tempfile.TemporaryDirectory(prefix="proctor-verify-") as scratch:
        copy = Path(scratch) / (workspace.resolve().name or "workspace")
        _copy_workspace(workspace, copy)
        (copy / result_rel).unlink(missing_ok=True)
        clauses, metric = _verify_copy(
            _Workspace(copy, config, choice, holdout, python, origin=workspace), runs
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
    from core.errors import GitError
    from core.integrity.git import run_git

    try:
        if run_git(workspace, "rev-parse", "--is-inside-work-tree").strip() != "true":
            return False
        return run_git(workspace, "ls-files", "-z", "--", rel).strip("\0") == ""
    except GitError:
        return False


def _refused(
    workspace: Path, config: Config, choice: SandboxChoice, result_rel: str, started: float
) -> VerifyReport:
    why = (
        f"refused before running (IN006): a stale {result_rel} from an earlier run is in the workspace; "
        "a campaign would refuse to launch with it (it would be protected with the suite). Delete it and "
        "run verify again"
    )
    clauses = [ClauseResult("runs", "fail", why)]
    clauses.append(
        ClauseResult("result-json", "fail", f"stale {result_rel} present before running (IN006): delete it")
    )
    for clause_id in CLAUSE_IDS[1:]:
        if clause_id != "result-json":
            clauses.append(ClauseResult(clause_id, "skip", f"not run: stale {result_rel} refused the launch"))
    ordered = tuple(sorted(clauses, key=lambda c: CLAUSE_IDS.index(c.id)))
    return VerifyReport(workspace, "fail", None, ordered, time.monotonic() - started, choice, config.command)


def _relative_inside(root: Path, value: str, key: str, *, directory: bool = False) -> str:
    """A config path as a clean workspace-relative posix path; refuse one that leaves the workspace.

    Verify deletes and replaces files at these paths (result.json, the entry point) in its copy, so a path
    that escapes (absolute, `..`, or through a symlinked directory) must never reach that code.
    """
    path = Path(value)
    if path.is_absolute() or ".." in path.parts:
        raise WorkspaceError(f"`{key}` must be a path inside the workspace, found {value!r}")
    rel = path.as_posix().strip("/") or "."
    base = root.resolve()
    parent = (root / rel).resolve() if directory else (root / rel).parent.resolve()
    if parent != base and base not in parent.parents:
        raise WorkspaceError(f"`{key}` {value!r} leads outside the workspace through a symlink")
    return rel


def _copy_workspace(source: Path, target: Path) -> None:
    try:
        shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns(*COPY_EXCLUDES))
    except (shutil.Error, OSError) as exc:
        detail = exc.args[0][0] if isinstance(exc, shutil.Error) and exc.args and exc.args[0] else exc
        raise WorkspaceError(f"cannot copy workspace {str(source)!r} to run it: {detail}") from None


def _verify_copy(ws: _Workspace, runs: int) -> tuple[list[ClauseResult], Score | None]:
    before = suite_hashes(ws.suite) if ws.suite.is_dir() else None
    full = [ws.run()]
    first = full[0]
    result_json = _check_result_json(ws, first)
    if first.score is not None:
        full.extend(ws.run() for _ in range(runs - 1))
    fast = ws.run(["--fast"])
    loud = _fails_loudly(ws)
    after = suite_hashes(ws.suite) if ws.suite.is_dir() else None
    clauses = [
        _runs_clause(ws, first, len(full)),
        _metric_line_clause(first),
        result_json,
        _deterministic_clause(ws, full, runs),
        _fast_mode_clause(fast),
        loud,
        _time_budget_clause(ws, full),
        _stray_writes_clause(ws, before, after),
        _isolation_clause(ws),
    ]
    return clauses, first.score


# --------------------------------------------------------------------------------------------- clauses


def _runs_clause(ws: _Workspace, first: _Run, count: int) -> ClauseResult:
    if first.result is None:
        return ClauseResult("runs", "fail", f"`{ws.config.command}` could not start: {first.error}")
    if not first.ok:
        return ClauseResult("runs", "fail", f"`{ws.config.command}` failed: {first.why_failed()}")
    where = f"sandbox {ws.choice.level}" + (
        f" via {ws.choice.mechanism}" if ws.choice.mechanism != "none" else ""
    )
    plural = "run" if count == 1 else "runs"
    return ClauseResult(
        "runs", "pass", f"exit 0 in {first.result.duration_s:.2f} s ({count} full {plural}, {where})"
    )


def _metric_line_clause(first: _Run) -> ClauseResult:
    if first.result is None:
        return ClauseResult("metric-line", "fail", "no output: the evaluator could not start")
    parsed = parse_stdout(first.stdout)
    if parsed.score is not None:
        score = parsed.score
        return ClauseResult(
            "metric-line",
            "pass",
            f"last stdout line {score.line.strip()!r} gives {score.name} = {score.value:g}",
        )
    detail = parsed.reason
    earlier = _earlier_metric_line(first.stdout)
    if earlier is not None:
        detail += f"; an earlier line {earlier!r} looks like a metric, but nothing may be printed after it"
    if first.result.stdout_truncated:
        detail += " (stdout was longer than 1 MiB; only its tail was kept)"
    on_stderr = parse_stdout(first.result.stderr).score
    if on_stderr is not None:
        detail += f"; {on_stderr.line.strip()!r} was printed on stderr, but only stdout counts"
    return ClauseResult("metric-line", "fail", detail)


def _earlier_metric_line(stdout: str) -> str | None:
    lines = [line for line in stdout.splitlines() if line.strip()]
    for line in reversed(lines[:-1]):
        if SCORE_LINE.match(line):
            return line.strip()
    return None


def _check_result_json(ws: _Workspace, first: _Run) -> ClauseResult:
    """Read result.json right after the first full run (later runs replace it)."""
    name = ws.result_rel
    if first.result is None:
        return ClauseResult("result-json", "fail", "not checked: the evaluator could not start")
    if not ws.result_path.is_file():
        return ClauseResult("result-json", "fail", f"{name} was not written by the run")
    try:
        data = json.loads(ws.result_path.read_text(encoding="utf-8"), parse_constant=lambda c: c)
    except (UnicodeDecodeError, ValueError) as exc:
        return ClauseResult("result-json", "fail", f"{name} is not valid JSON: {exc}")
    if not isinstance(data, dict):
        return ClauseResult(
            "result-json", "fail", f"{name} is not a JSON object (found {type(data).__name__})"
        )
    missing = [key for key in REQUIRED_RESULT_KEYS if key not in data]
    if missing:
        return ClauseResult("result-json", "fail", f"{name} lacks {', '.join(missing)}")
    score = data["score"]
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        return ClauseResult(
            "result-json", "fail", f"{name}: `score` is not a finite number (found {score!r})"
        )
    script = data["evaluation_script_path"]
    if not isinstance(script, str) or not script or not _script_exists(ws, script):
        return ClauseResult(
            "result-json",
            "fail",
            f"{name}: `evaluation_script_path` {script!r} does not exist in the workspace",
        )
    printed = first.score
    if printed is None:
        # Not a second failure for the same cause: metric-line already fails, and says why.
        return ClauseResult(
            "result-json",
            "skip",
            f"{name} has the three keys, but `score` {score!r} cannot be compared: no metric line was printed",
        )
    if not math.isclose(float(score), printed.value, rel_tol=1e-9):
        return ClauseResult(
            "result-json",
            "fail",
            f"{name}: `score` {score!r} differs from the printed {printed.name} = {printed.value!r}",
        )
    return ClauseResult(
        "result-json", "pass", f"{name} has the three keys; `score` equals the printed value {score!r}"
    )


def _script_exists(ws: _Workspace, script: str) -> bool:
    path = Path(script)
    if path.is_absolute():
        return path.is_file()
    return (ws.root / path).is_file() or (ws.suite / path).is_file()


def _deterministic_clause(ws: _Workspace, full: list[_Run], runs: int) -> ClauseResult:
    if runs < 2:
        return ClauseResult("deterministic", "skip", "only one full run was asked for (--runs 1)")
    first = full[0].score
    if first is None:
        return ClauseResult("deterministic", "skip", "not checked: the first full run gave no score")
    tolerance = ws.config.determinism_tolerance
    for index, run in enumerate(full[1:], start=2):
        score = run.score
        if score is None:
            why = run.why_failed() or parse_stdout(run.stdout).reason
            return ClauseResult("deterministic", "fail", f"full run {index} gave no score: {why}")
        if score.name != first.name:
            return ClauseResult(
                "deterministic",
                "fail",
                f"full run {index} printed metric {score.name!r}, run 1 printed {first.name!r}",
            )
        difference = abs(score.value - first.value)
        if difference > tolerance:
            return ClauseResult(
                "deterministic",
                "fail",
                f"full run {index} gave {score.name} = {score.value!r}, run 1 gave {first.value!r} "
                f"(difference {difference:.3g} > tolerance {tolerance:g})",
            )
    how = "exactly" if tolerance == 0 else f"within {tolerance:g}"
    return ClauseResult(
        "deterministic", "pass", f"{len(full)} full runs agree {how}: {first.name} = {first.value:g}"
    )


def _fast_mode_clause(fast: _Run) -> ClauseResult:
    if fast.result is None:
        return ClauseResult("fast-mode", "fail", f"`--fast` could not start: {fast.error}")
    if not fast.ok:
        return ClauseResult("fast-mode", "fail", f"`--fast` failed: {fast.why_failed()}")
    parsed = parse_stdout(fast.stdout)
    if parsed.score is None:
        return ClauseResult(
            "fast-mode", "fail", f"`--fast` exits 0 but prints no metric line: {parsed.reason}"
        )
    score = parsed.score
    return ClauseResult(
        "fast-mode",
        "pass",
        f"`--fast` exits 0 in {fast.result.duration_s:.2f} s with {score.name} = {score.value:g} "
        "(fidelity fast, never compared with full scores)",
    )


def _fails_loudly(ws: _Workspace) -> ClauseResult:
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


def _time_budget_clause(ws: _Workspace, full: list[_Run]) -> ClauseResult:
    budget = ws.config.fast_budget_s
    results = [run.result for run in full if run.result is not None]
    if any(result.timed_out for result in results):
        return ClauseResult(
            "time-budget",
            "warn",
            f"a full run hit the timeout ({ws.config.timeout_s:g} s); budget {budget:g} s",
        )
    finished = [result.duration_s for result in results if result.ok]
    if not finished:
        return ClauseResult("time-budget", "skip", "no successful full run to time")
    slowest = max(finished)
    if slowest > budget:
        return ClauseResult(
            "time-budget", "warn", f"a full run took {slowest:.2f} s, over fast_budget_s = {budget:g} s"
        )
    return ClauseResult(
        "time-budget", "pass", f"a full run takes {slowest:.2f} s (fast_budget_s = {budget:g} s)"
    )


def _stray_writes_clause(
    ws: _Workspace, before: dict[str, str] | None, after: dict[str, str] | None
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


def _isolation_clause(ws: _Workspace) -> ClauseResult:
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


def _in_process_findings(ws: _Workspace) -> str:
    """Where EV014 finds the evaluator importing or executing candidate code ('' when nowhere)."""
    from core.check import check_paths

    try:
        found = check_paths(workspace=ws.root, config=ws.config, select=["EV014"]).diagnostics
    except ProctorError:
        return ""
    return "; ".join(f"{d.path}:{d.range.start.line + 1}" for d in found[:3])


_READ_ONLY_WRITE = re.compile(r"Read-only file system: '([^']+)'")


def _refused_suite_writes(ws: _Workspace, ignored: set[str]) -> list[str]:
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


# --------------------------------------------------------------------------------------------- suite hashing


def suite_hashes(suite: Path) -> dict[str, str]:
    """{posix relative path: sha256} of every file under the suite; a symlink hashes as its target text.

    Unlike the Kapso-compatible manifest (core.integrity.manifest), `__pycache__` files are included:
    verify must see a bytecode file appear (IN005).
    """
    hashes: dict[str, str] = {}
    for current, dirs, files in walk(suite):  # iterative, any depth
        dirs.sort()
        base = Path(current)
        for name in sorted(files) + [d for d in dirs if (base / d).is_symlink()]:
            path = base / name
            rel = path.relative_to(suite).as_posix()
            if path.is_symlink():
                hashes[rel] = "symlink:" + os.readlink(path)
            else:
                hashes[rel] = _sha256(path)
    return hashes


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    return digest.hexdigest()


def is_source_file(path: Path) -> bool:
    """IN005: a source suffix (case-insensitive, trailing dots/spaces ignored), executable, or starts with #!."""
    if source_suffix(path.name) in SOURCE_SUFFIXES or path.parent.name == "__pycache__":
        return True
    if path.is_symlink():
        return True
    try:
        if path.stat().st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH):
            return True
        with path.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return True
