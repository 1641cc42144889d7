"""A measured pull request → check-run conclusion, title, summary, annotations and the PR comment (pure).

Conclusion and title follow SPEC §10 "Check run outcome" exactly; everything a candidate or evaluator wrote
goes through `hygiene` before it reaches GitHub.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.campaign.model import CandidateRecord, Direction
from core.campaign.verdict import is_regression
from core.config import GithubConfig
from core.diagnostics import Diagnostic, Severity
from core.integrity.checks import rule_title
from core.registry import EvaluatorRef
from github_app import hygiene
from github_app.text import COMMENT_MARKER, HOW_TO_ACCEPT, TITLE_VERBS

ANNOTATION_BATCH = 50
MAX_ANNOTATIONS = 1000  # 20 requests; past that a reader wants the report, not more markers
_LEVELS = {Severity.ERROR: "failure", Severity.WARNING: "warning", Severity.INFO: "notice"}


@dataclass(frozen=True)
class Measured:
    """Base and head measured under one trusted suite (or, after accept-evaluator, each under its own)."""

    base: CandidateRecord
    head: CandidateRecord
    metric: str
    direction: Direction
    evaluator: EvaluatorRef
    base_evaluator: EvaluatorRef
    sandbox: str
    isolated: bool
    diagnostics: tuple[Diagnostic, ...] = ()
    delta: float | None = None
    stderr: float | None = None

    @property
    def comparable(self) -> bool:
        return (
            self.evaluator.evaluator_id == self.base_evaluator.evaluator_id and self.base.status == "scored"
        )


@dataclass(frozen=True)
class Outcome:
    conclusion: str
    title: str
    summary: str
    annotations: tuple[Mapping[str, Any], ...]


def number(value: float) -> str:
    """Four decimals, unless the value needs more to show anything but zero."""
    if not math.isfinite(value):
        return str(value)
    if value == 0 or abs(value) >= 0.0001:
        return f"{value:.4f}"
    digits = min(12, 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{digits}f}"


def signed(value: float) -> str:
    return ("+" if value >= 0 else "") + number(value)


def _rejected_title(record: CandidateRecord) -> str:
    rejects = [f for f in record.findings if f.severity == "reject"] or list(record.findings)
    if not rejects:
        return f"rejected: {record.reason}"
    first = rejects[0]
    title = f"rejected: {first.code} {first.path} {TITLE_VERBS.get(first.code, 'changed')}"
    return title + (f" +{len(rejects) - 1} more" if len(rejects) > 1 else "")


def _scored_title(m: Measured) -> str:
    assert m.head.score is not None
    metric = m.head.metric_name or m.metric or "score"
    head = f"{metric} {number(m.head.score)}"
    if not m.comparable:
        if m.evaluator.evaluator_id != m.base_evaluator.evaluator_id:
            return f"{head} (evaluator v{m.evaluator.version}; base under v{m.base_evaluator.version}: not comparable)"
        return f"{head} (base {m.base.status}: not comparable)"
    if m.delta is None:
        return head
    spread = f" ± {number(m.stderr)}" if m.stderr is not None else ""
    return f"{head} ({signed(m.delta)}{spread} vs base)"


def decide(m: Measured, config: GithubConfig) -> tuple[str, str]:
    """(conclusion, title) by `github.conclusion` (SPEC §10): regression | rejected-only | never."""
    head, policy = m.head, config.conclusion
    if head.status == "rejected":
        title = _rejected_title(head)
        conclusion = "failure" if policy in ("regression", "rejected-only") else "neutral"
    elif head.status == "failed":
        title = f"failed: {head.reason or 'no reason recorded'}"
        conclusion = "failure" if policy == "regression" else "neutral"
    else:
        title = _scored_title(m)
        if policy == "never" or not m.comparable:
            conclusion = "neutral"
        elif policy == "regression" and _regressed(m, config):
            conclusion = "failure"
        else:
            conclusion = "success"
    return conclusion, hygiene.plain(title)


def _regressed(m: Measured, config: GithubConfig) -> bool:
    return is_regression(m.delta, m.stderr, m.direction, tolerance=config.regression_tolerance)


def _score_cell(record: CandidateRecord) -> str:
    return number(record.score) if record.score is not None else "—"


def score_table(m: Measured) -> str:
    rows = [
        "| | commit | status | score |",
        "| --- | --- | --- | --- |",
        f"| base | `{(m.base.commit or '')[:12]}` | {m.base.status} | {_score_cell(m.base)} |",
        f"| head | `{(m.head.commit or '')[:12]}` | {m.head.status} | {_score_cell(m.head)} |",
    ]
    if m.delta is not None and m.comparable:
        spread = (
            f" ± {number(m.stderr)}" if m.stderr is not None else " (no standard error: no per-item scores)"
        )
        rows.append(f"| delta | | | {signed(m.delta)}{spread} |")
    ev = m.evaluator
    version = f"version {ev.version} ({ev.provenance})" if ev.version else "(not registered)"
    metric = hygiene.inline(m.metric or m.head.metric_name or "score")
    lines = [
        *rows,
        "",
        f"Metric: {metric} ({m.direction}). Evaluator `{ev.evaluator_id[:12]}` {version}. "
        f"Sandbox: {hygiene.inline(m.sandbox)}.",
    ]
    if not m.comparable and m.evaluator.evaluator_id != m.base_evaluator.evaluator_id:
        lines.append(
            f"\nThe base was scored under evaluator version {m.base_evaluator.version} "
            f"(`{m.base_evaluator.evaluator_id[:12]}`): not comparable with version {ev.version}."
        )
    return "\n".join(lines)


def rejected_report(record: CandidateRecord) -> str:
    """The rejected-candidate report: each finding's code, path, detail, and what the code means."""
    if not record.findings:
        return ""
    lines = ["| code | path | finding | what it means |", "| --- | --- | --- | --- |"]
    for f in record.findings:
        lines.append(
            f"| {f.code}{' (flag)' if f.severity == 'flag' else ''} | {hygiene.inline(f.path, 300)} | "
            f"{hygiene.inline(f.detail, 500)} | {rule_title(f.code)} |"
        )
    if record.status == "rejected":
        lines += ["", HOW_TO_ACCEPT]
    return "\n".join(lines)


def _failure_report(record: CandidateRecord, side: str) -> str:
    if record.status != "failed":
        return ""
    tail = record.stderr_tail or record.stdout_tail
    parts = [f"The {side} failed: {hygiene.inline(record.reason)}"]
    if tail:
        parts.append(hygiene.code_block(tail, 4000))
    return "\n\n".join(parts)


def isolation_notice(m: Measured) -> str:
    """The first line of every summary and comment when the evaluator ran without a namespace sandbox."""
    if m.isolated:
        return ""
    return f"**not isolated**: the evaluator ran without a namespace sandbox ({hygiene.inline(m.sandbox)})."


def full_report(m: Measured, title: str, conclusion: str) -> str:
    """Everything, uncut: kept in the data dir for when GitHub's limits cut the check run or the comment."""
    parts = [f"# {conclusion}: {title}", *body_sections(m)]
    for record, side in ((m.base, "base"), (m.head, "head")):
        parts.append(f"## {side} output\n\nstdout:\n{hygiene.code_block(record.stdout_tail, 10**6)}")
        parts.append(f"stderr:\n{hygiene.code_block(record.stderr_tail, 10**6)}")
    return "\n\n".join(parts) + "\n"


def body_sections(m: Measured) -> list[str]:
    sections = [notice] if (notice := isolation_notice(m)) else []
    sections.append(score_table(m))
    report = rejected_report(m.head)
    if report:
        sections.append("#### Integrity findings\n\n" + report)
    for record, side in ((m.base, "base"), (m.head, "head")):
        failure = _failure_report(record, side)
        if failure:
            sections.append(failure)
    if m.diagnostics:
        sections.append(
            f"Static rules: {len(m.diagnostics)} finding(s) on changed files, shown as annotations."
        )
    return sections


def annotations_of(m: Measured) -> list[dict[str, Any]]:
    """Guard findings at their file, rule violations at file and line."""
    out: list[dict[str, Any]] = []
    for f in m.head.findings:
        out.append(
            {
                "path": f.path or ".",
                "start_line": 1,
                "end_line": 1,
                "annotation_level": "failure" if f.severity == "reject" else "warning",
                "title": hygiene.plain(f"{f.code} {rule_title(f.code)}", hygiene.ANNOTATION_TITLE_LIMIT),
                "message": hygiene.plain(
                    f.detail or rule_title(f.code) or f.code, hygiene.ANNOTATION_MESSAGE_LIMIT
                ),
            }
        )
    for d in m.diagnostics:
        start = d.range.start.line + 1
        out.append(
            {
                "path": d.path,
                "start_line": start,
                "end_line": max(start, d.range.end.line + 1),
                "annotation_level": _LEVELS.get(d.severity, "warning"),
                "title": hygiene.plain(f"{d.code} {d.name}", hygiene.ANNOTATION_TITLE_LIMIT),
                "message": hygiene.plain(d.message, hygiene.ANNOTATION_MESSAGE_LIMIT),
            }
        )
    return out


def render(m: Measured, config: GithubConfig, pointer: str = "") -> Outcome:
    """`pointer` says where the uncut report is, for texts cut to GitHub's limits."""
    conclusion, title = decide(m, config)
    found = annotations_of(m)
    sections = body_sections(m)
    if len(found) > MAX_ANNOTATIONS:
        sections.append(f"Annotations: the first {MAX_ANNOTATIONS} of {len(found)} are shown.")
    summary = hygiene.cut("\n\n".join(sections), hygiene.SUMMARY_LIMIT, pointer)
    return Outcome(conclusion, title, summary, tuple(found[:MAX_ANNOTATIONS]))


def batches(
    items: Sequence[Mapping[str, Any]], size: int = ANNOTATION_BATCH
) -> list[Sequence[Mapping[str, Any]]]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [()]


def comment_body(
    m: Measured | None, outcome_title: str, conclusion: str, pointer: str = "", extra: str = ""
) -> str:
    """The one PR comment, found again by its hidden marker and updated in place."""
    notice = isolation_notice(m) if m is not None else ""
    head = f"### Proctor: {conclusion}\n\n**{hygiene.inline(outcome_title, 300)}**"
    parts = [f"{COMMENT_MARKER}\n{notice}" if notice else COMMENT_MARKER, head]
    if m is not None:
        parts += [section for section in body_sections(m) if section != notice]
    if extra:
        parts.append(extra)
    return hygiene.cut("\n\n".join(parts), hygiene.COMMENT_LIMIT, pointer)
