"""The scoreboard as display rows: one formatting of numbers and statuses for the text and HTML reports."""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.campaign.model import CampaignResult, CandidateRecord, ScoredRow


@dataclass(frozen=True)
class DisplayRow:
    rank: str
    ref: str
    commit: str
    status: str
    score: str
    delta: str
    findings: str
    duration: str
    note: str
    is_winner: bool


def fmt_score(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.4f}" if abs(value) < 1e4 else f"{value:.6g}"


def fmt_delta(delta: float | None, stderr: float | None) -> str:
    if delta is None:
        return "—"
    text = f"{delta:+.4f}" if abs(delta) < 1e4 else f"{delta:+.6g}"
    return f"{text} ± {stderr:.4f}" if stderr is not None else text


def short(commit: str | None) -> str:
    return commit[:10] if commit else "—"


def note_for(record: CandidateRecord) -> str:
    """Why a candidate is not scored, in one line (the rejected codes, or the failure reason)."""
    if record.status == "rejected":
        return (
            ", ".join(f"{f.code} {f.path}" for f in record.findings if f.severity == "reject")
            or record.reason
        )
    if record.status == "failed":
        return record.reason
    flags = [f"{f.code} {f.path}" for f in record.findings]
    extra = record.external.error if record.external is not None and record.external.error else ""
    parts = [record.based_on] if record.based_on else []
    parts += [*(["flags: " + ", ".join(flags)] if flags else []), *([extra] if extra else [])]
    return "; ".join(parts)


def no_winner_reason(result: CampaignResult) -> str:
    """Why there is no winner, in one line: the best candidate only improved within noise, or none improved."""
    row = result.within_noise
    if row is None:
        return "no scored candidate beats the baseline"
    record = row.record
    rule = result.noise
    needed = [f"> {rule.threshold:g}"]
    if row.stderr is not None:
        needed.append(f"> {rule.significance:g} SE = {rule.significance * row.stderr:.4f}")
    return (
        f"best candidate {record.ref} ({short(record.commit)}) {fmt_delta(row.delta, row.stderr)} is within "
        f"noise (a winner needs an improvement {' and '.join(needed)}); nothing delivered"
    )


def display_rows(result: CampaignResult) -> list[DisplayRow]:
    """Candidates in measurement order; rank counts scored candidates best first by direction."""
    scored = sorted(
        (row for row in result.rows if row.record.status == "scored" and row.record.score is not None),
        key=lambda row: (
            -(row.record.score or 0.0) if result.direction == "maximize" else (row.record.score or 0.0),
            row.record.index,
        ),
    )
    ranks = {row.record.index: str(position) for position, row in enumerate(scored, start=1)}
    winner = result.winner.index if result.winner is not None else None
    noisy = result.within_noise.record.index if result.within_noise is not None else None
    return [
        _display(row, ranks.get(row.record.index, ""), row.record.index == winner, row.record.index == noisy)
        for row in result.rows
    ]


def _display(row: ScoredRow, rank: str, is_winner: bool, within_noise: bool = False) -> DisplayRow:
    record = row.record
    note = note_for(record)
    if within_noise:
        note = "; ".join(part for part in ("within noise", note) if part)
    return DisplayRow(
        rank=rank,
        ref=record.ref,
        commit=short(record.commit),
        status=record.status,
        score=fmt_score(record.score),
        delta=fmt_delta(row.delta, row.stderr),
        findings=", ".join(record.finding_codes),
        duration=f"{record.duration_s:.1f}s",
        note=note,
        is_winner=is_winner,
    )


def rejected_report(result: CampaignResult) -> list[str]:
    """The rejected-candidate report: each rejected candidate with its codes and paths."""
    lines: list[str] = []
    for row in result.rows:
        record = row.record
        if record.status != "rejected":
            continue
        lines.append(f"{record.ref} ({short(record.commit)}) rejected:")
        for finding in record.findings:
            marker = "" if finding.severity == "reject" else " (flag)"
            lines.append(f"  {finding.code}{marker} {finding.path}: {finding.detail}")
    return lines
