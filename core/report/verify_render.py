"""Renderers for `proctor verify`: a table people read, and the stable JSON document (SPEC §3.3)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.verify.report import VerifyReport

__all__ = ["render_json", "render_text"]

_MARKS = {"pass": "pass", "fail": "FAIL", "warn": "warn", "skip": "skip"}


def render_text(report: VerifyReport) -> str:
    """One line per clause, in the SPEC's order, then the verdict; the sandbox is named so nobody guesses."""
    width = max(len(clause.id) for clause in report.clauses)
    lines = [
        f"proctor verify {report.workspace}",
        f"  command: {report.command}",
        f"  sandbox: {report.sandbox.describe()}",
        *([f"  python: {report.python.describe()}"] if report.python is not None else []),
        "",
    ]
    for clause in report.clauses:
        lines.append(f"  {_MARKS[clause.status]:<4}  {clause.id:<{width}}  {clause.detail}")
    metric = f"{report.metric.name} = {report.metric.value:g}" if report.metric else "no metric"
    failed = [clause.id for clause in report.clauses if clause.status == "fail"]
    summary = "pass" if report.passed else f"fail ({', '.join(failed)})"
    lines += [f"  note: {note}" for note in report.notes]
    lines += ["", f"verdict: {summary}; {metric}; {report.duration_s:.1f} s"]
    return "\n".join(lines)


def render_json(report: VerifyReport) -> str:
    return json.dumps(report.to_json(), indent=2, allow_nan=False)
