"""The campaign report's data model: everything the HTML shows, computed once from a CampaignResult.

Pure: no I/O and no HTML. What the result does not hold (commit messages and diff stats from git, the other
campaigns of the repository for the trend) is handed in, so tests build a report from plain values and the
renderer only lays out what this module decided: the ranking, the verdict sentence, the groups.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from core.campaign.model import CampaignResult, ScoredRow, better
from core.campaign.scoreboard import fmt_delta, fmt_score, no_winner_reason, note_for
from core.diagnostics import rule_url
from core.integrity.checks import rule_title

Group = Literal["ranked", "rejected", "failed"]
# Integrity codes are documented in the README's integrity section; rule codes in docs/rules.md.
INTEGRITY_DOCS_URL = (
    "https://github.com/proctor-dev/proctor/blob/main/README.md#integrity-fingerprints-guard-registry"
)
OUTPUT_TAIL_CHARS = 3000
MESSAGE_CHARS = 2000
MAX_FILES = 40


@dataclass(frozen=True)
class ChangedFile:
    """One line of the diff stat against the baseline; None counts for a binary file."""

    path: str
    added: int | None
    deleted: int | None


@dataclass(frozen=True)
class CommitFacts:
    """What git knows about a candidate commit that the campaign did not record."""

    message: str = ""
    files: tuple[ChangedFile, ...] = ()
    more_files: int = 0
    error: str = ""


@dataclass(frozen=True)
class ReportFinding:
    code: str
    severity: str
    title: str
    path: str
    detail: str
    doc_url: str


@dataclass(frozen=True)
class ReportRow:
    """One measured commit as the scoreboard shows it. `rank` counts candidates only (the baseline has none)."""

    index: int
    group: Group
    rank: int | None
    ref: str
    commit: str
    status: str
    is_baseline: bool
    is_winner: bool
    score: float | None
    delta: float | None
    stderr: float | None
    reason: str
    duration_s: float
    findings: tuple[ReportFinding, ...]
    stdout_tail: str
    stderr_tail: str
    facts: CommitFacts | None
    external_metrics: tuple[tuple[str, float], ...] = ()
    external_error: str = ""
    not_isolated: str = ""
    finished_at: str = ""

    @property
    def score_text(self) -> str:
        return fmt_score(self.score)

    @property
    def delta_text(self) -> str:
        return "" if self.is_baseline else fmt_delta(self.delta, self.stderr)

    @property
    def mark(self) -> str:
        """The status as a shape, so it reads without colour."""
        if self.is_baseline and self.group == "ranked":
            return "◆"
        if self.is_winner:
            return "★"
        return {"ranked": "●", "rejected": "✕", "failed": "▲"}[self.group]

    @property
    def label(self) -> str:
        if self.is_baseline:
            return "baseline" if self.group == "ranked" else f"baseline {self.status}"
        return "winner" if self.is_winner else self.status


@dataclass(frozen=True)
class TrendPoint:
    """The best score of one campaign, for the trend across campaigns (one evaluator version per line)."""

    campaign_id: str
    when: str
    evaluator_id: str
    version: int
    metric: str
    direction: str
    score: float | None


@dataclass(frozen=True)
class Header:
    campaign_id: str
    started_at: str
    finished_at: str
    duration_s: float | None
    repo: str
    baseline_ref: str
    baseline_commit: str
    evaluator_id: str
    evaluator_version: int
    provenance: str
    metric: str
    direction: str
    goal: str
    sandbox: str
    isolated: bool
    not_isolated: tuple[str, ...]
    interpreter: str
    proctor_version: str
    delivered_branch: str | None
    scored: int
    rejected: int
    failed: int


@dataclass(frozen=True)
class ReportModel:
    header: Header
    verdict: str
    rows: tuple[ReportRow, ...]
    baseline_score: float | None
    baseline_se: float | None
    notes: tuple[str, ...] = ()
    trend: tuple[TrendPoint, ...] = field(default=())

    @property
    def ranked(self) -> tuple[ReportRow, ...]:
        return tuple(r for r in self.rows if r.group == "ranked")

    @property
    def unscored(self) -> tuple[ReportRow, ...]:
        return tuple(r for r in self.rows if r.group != "ranked")


def build_model(
    result: CampaignResult,
    *,
    facts: Mapping[str, CommitFacts] | None = None,
    trend: Sequence[TrendPoint] = (),
    proctor_version: str = "",
) -> ReportModel:
    """The report of `result`; `facts` by commit sha, `trend` the repository's campaigns (any order)."""
    facts = facts or {}
    winner = result.winner.index if result.winner is not None else None
    base = result.baseline
    base_row = _row(ScoredRow(base, None, None), facts, winner)
    candidates = [_row(row, facts, winner) for row in result.rows]
    ranked = sorted(
        [r for r in (base_row, *candidates) if r.group == "ranked"],
        key=lambda r: _rank_key(r, result.direction),
    )
    numbered = []
    position = 0
    for row in ranked:
        if not row.is_baseline:
            position += 1
        numbered.append(row if row.is_baseline else _with_rank(row, position))
    unscored = [r for r in (base_row, *candidates) if r.group != "ranked"]
    unscored.sort(key=lambda r: (r.group != "rejected", r.index))
    base_score = base.score if base.status == "scored" else None
    return ReportModel(
        header=_header(result, proctor_version),
        verdict=verdict(result),
        rows=(*numbered, *unscored),
        baseline_score=base_score,
        baseline_se=standard_error(base.per_item_scores) if base_score is not None else None,
        notes=result.notes,
        trend=tuple(sorted(trend, key=lambda p: (p.when, p.campaign_id))),
    )


def _rank_key(row: ReportRow, direction: str) -> tuple[float, int]:
    score = row.score if row.score is not None else 0.0
    return (-score if direction == "maximize" else score, row.index)


def _with_rank(row: ReportRow, rank: int) -> ReportRow:
    return replace(row, rank=rank)


def _row(scored: ScoredRow, facts: Mapping[str, CommitFacts], winner: int | None) -> ReportRow:
    record = scored.record
    group: Group = "ranked"
    if record.status == "rejected":
        group = "rejected"
    elif record.status == "failed" or record.score is None or not math.isfinite(record.score):
        group = "failed"
    external = record.external
    return ReportRow(
        index=record.index,
        group=group,
        rank=None,
        ref=record.ref,
        commit=record.commit or "",
        status=record.status,
        is_baseline=record.index == 0,
        is_winner=record.index == winner and record.index != 0,
        score=record.score if group == "ranked" else None,
        delta=scored.delta,
        stderr=scored.stderr,
        reason=note_for(record) if group != "ranked" else record.reason,
        duration_s=record.duration_s,
        findings=tuple(_finding(f.code, f.severity, f.path, f.detail) for f in record.findings),
        stdout_tail=tail_text(record.stdout_tail),
        stderr_tail=tail_text(record.stderr_tail),
        facts=facts.get(record.commit or ""),
        external_metrics=tuple(sorted(external.metrics.items())) if external is not None else (),
        external_error=external.error if external is not None and external.error else "",
        not_isolated=record.not_isolated,
        finished_at=record.finished_at,
    )


def _finding(code: str, severity: str, path: str, detail: str) -> ReportFinding:
    url = INTEGRITY_DOCS_URL if code.startswith("IN") else rule_url(code)
    return ReportFinding(code, severity, rule_title(code), path, detail, url)


def tail_text(text: str, limit: int = OUTPUT_TAIL_CHARS) -> str:
    """The last `limit` characters of an output stream, cut at a line start when one is near."""
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    newline = cut.find("\n")
    return "…" + (cut[newline + 1 :] if 0 <= newline < 200 else cut)


def standard_error(items: Sequence[float] | None) -> float | None:
    """Standard error of the mean of per-item scores (None with fewer than two items)."""
    if items is None or len(items) < 2:
        return None
    se = statistics.stdev(items) / math.sqrt(len(items))
    return se if math.isfinite(se) else None


def _header(result: CampaignResult, proctor_version: str) -> Header:
    ev = result.evaluator
    base = result.baseline
    reasons = result.not_isolated
    if not reasons and _process_level(result.sandbox):  # checkpoints from before records said why
        reasons = ("the campaign ran at the process level",)
    return Header(
        campaign_id=result.campaign_id,
        started_at=result.started_at,
        finished_at=result.finished_at,
        duration_s=duration_between(result.started_at, result.finished_at),
        repo=str(result.repo),
        baseline_ref=base.ref,
        baseline_commit=base.commit or "",
        evaluator_id=ev.evaluator_id,
        evaluator_version=ev.version,
        provenance=ev.provenance,
        metric=result.metric_name,
        direction=result.direction,
        goal=result.goal,
        sandbox=result.sandbox,
        isolated=not reasons,
        not_isolated=reasons,
        interpreter=result.interpreter,
        proctor_version=result.proctor_version or proctor_version,
        delivered_branch=result.delivered_branch,
        scored=result.scored_candidates,
        rejected=result.rejected_candidates,
        failed=result.failed_candidates,
    )


def _process_level(sandbox: str) -> bool:
    return sandbox.strip().lower().startswith("process")


def duration_between(start: str, end: str) -> float | None:
    try:
        seconds = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    except (ValueError, TypeError):
        return None
    return seconds if seconds >= 0 else None


def verdict(result: CampaignResult) -> str:
    """The campaign's outcome in one sentence."""
    metric = result.metric_name
    base = result.baseline
    prefix = (
        f"The baseline {base.status} ({note_for(base)}): there is no reference score. "
        if (base.status != "scored")
        else ""
    )
    winner = result.winner
    if winner is not None:
        row = next(r for r in result.rows if r.record.index == winner.index)
        text = f"Winner {winner.ref}: {metric} {fmt_score(winner.score)}"
        if row.delta is not None:
            text += f", {fmt_delta(row.delta, row.stderr)} over the baseline"
        if result.delivered_branch:
            text += f", delivered as branch {result.delivered_branch}"
        return prefix + text + "."
    if result.within_noise is not None:
        return prefix + f"No candidate beat the baseline beyond noise: {no_winner_reason(result)}."
    best = _best_candidate(result)
    if best is None:
        return (
            prefix + f"No candidate could be scored: {result.rejected_candidates} rejected, "
            f"{result.failed_candidates} failed."
        )
    return (
        prefix
        + f"No candidate beat the baseline ({metric} {fmt_score(base.score)}); the best, {best.record.ref}, "
        f"scored {fmt_score(best.record.score)} ({fmt_delta(best.delta, best.stderr)})."
    )


def _best_candidate(result: CampaignResult) -> ScoredRow | None:
    best: ScoredRow | None = None
    for row in result.rows:
        score = row.record.score
        if row.record.status != "scored" or score is None or not math.isfinite(score):
            continue
        if best is None or better(score, best.record.score or 0.0, result.direction):
            best = row
    return best


def trend_point(board: Mapping[str, Any], when: str) -> TrendPoint | None:
    """A campaign's best score from its scoreboard.json (schema 1); None when the file is not one."""
    try:
        evaluator, metric, candidates = board["evaluator"], board["metric"], board.get("candidates") or []
        if (
            not isinstance(evaluator, Mapping)
            or not isinstance(metric, Mapping)
            or not isinstance(candidates, list)
        ):
            return None
        direction = str(metric["direction"])
        scores = [_number(board["baseline"], "score")]
        scores += [
            _number(c, "score") for c in candidates if isinstance(c, Mapping) and c.get("status") == "scored"
        ]
        finite = [s for s in scores if s is not None]
        return TrendPoint(
            campaign_id=str(board["campaign_id"]),
            when=when,
            evaluator_id=str(evaluator["evaluator_id"]),
            version=int(evaluator["version"]),
            metric=str(metric["name"]),
            direction=direction,
            score=((max if direction == "maximize" else min)(finite) if finite else None),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _number(data: object, key: str) -> float | None:
    value = data.get(key) if isinstance(data, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


__all__ = [
    "ChangedFile",
    "CommitFacts",
    "Header",
    "ReportFinding",
    "ReportModel",
    "ReportRow",
    "TrendPoint",
    "build_model",
    "duration_between",
    "standard_error",
    "tail_text",
    "trend_point",
    "verdict",
]
