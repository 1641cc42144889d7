"""The clauses judged from the evaluator's own runs: it runs, prints a metric line, writes result.json,
gives the same score twice, has a `--fast` mode, and stays inside its time budget."""

from __future__ import annotations

import json
import math
from pathlib import Path

from core.scoreline import SCORE_LINE, parse_stdout
from core.verify.report import ClauseResult
from core.verify.scratch import EvaluatorRun, ScratchWorkspace

__all__ = [
    "REQUIRED_RESULT_KEYS",
    "deterministic_clause",
    "fast_mode_clause",
    "metric_line_clause",
    "result_json_clause",
    "runs_clause",
    "time_budget_clause",
]

REQUIRED_RESULT_KEYS = ("evaluation_script_path", "evaluation_output", "score")


def runs_clause(ws: ScratchWorkspace, first: EvaluatorRun, count: int) -> ClauseResult:
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


def metric_line_clause(first: EvaluatorRun) -> ClauseResult:
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


def result_json_clause(ws: ScratchWorkspace, first: EvaluatorRun) -> ClauseResult:
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


def _script_exists(ws: ScratchWorkspace, script: str) -> bool:
    path = Path(script)
    if path.is_absolute():
        return path.is_file()
    return (ws.root / path).is_file() or (ws.suite / path).is_file()


def deterministic_clause(ws: ScratchWorkspace, full: list[EvaluatorRun], runs: int) -> ClauseResult:
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


def fast_mode_clause(fast: EvaluatorRun) -> ClauseResult:
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


def time_budget_clause(ws: ScratchWorkspace, full: list[EvaluatorRun]) -> ClauseResult:
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
