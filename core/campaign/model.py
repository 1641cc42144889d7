"""The campaign's records: one per measured commit, and the whole campaign's result (SPEC §5.3).

Records are plain frozen dataclasses that round-trip through JSON, because the parent process rebuilds them
from the checkpoint on resume and the scoreboard must come out identical either way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from core.campaign.external import ExternalOutcome
from core.campaign.verdict import DEFAULT_RULE, NoiseRule, beats_baseline
from core.registry import EvaluatorRef

Status = Literal["scored", "rejected", "failed"]
Direction = Literal["maximize", "minimize"]
STATUSES: tuple[Status, ...] = ("scored", "rejected", "failed")
SCHEMA = 1


@dataclass(frozen=True)
class FindingRecord:
    """An integrity finding as stored: `severity` is `reject` or `flag` (IN011 only reports)."""

    code: str
    severity: str
    path: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "severity": self.severity, "path": self.path, "detail": self.detail}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FindingRecord:
        return cls(
            str(data["code"]), str(data.get("severity", "reject")), str(data["path"]), str(data["detail"])
        )

    @classmethod
    def from_finding(cls, finding: Any) -> FindingRecord:
        """Accept core.integrity's Finding (or anything shaped like it)."""
        return cls(
            str(finding.code),
            str(getattr(finding, "severity", "reject")),
            str(finding.path),
            str(finding.detail),
        )


def ref_to_json(ref: EvaluatorRef) -> dict[str, Any]:
    return {"version": ref.version, "evaluator_id": ref.evaluator_id, "provenance": ref.provenance}


def ref_from_json(data: Mapping[str, Any]) -> EvaluatorRef:
    return EvaluatorRef(int(data["version"]), str(data["evaluator_id"]), str(data["provenance"]))


@dataclass(frozen=True)
class CandidateRecord:
    """The outcome of one commit's measurement. `index` 0 is the baseline; candidates count from 1."""

    index: int
    ref: str
    commit: str | None
    parent_ref: str
    status: Status
    score: float | None = None
    metric_name: str | None = None
    reason: str = ""
    stdout_tail: str = ""
    stderr_tail: str = ""
    findings: tuple[FindingRecord, ...] = ()
    duration_s: float = 0.0
    per_item_scores: tuple[float, ...] | None = None
    external: ExternalOutcome | None = None
    sandbox: str = ""
    # Set when the candidate predates an evaluator change (core/integrity/merge_base.py): says so, one line.
    based_on: str = ""
    not_isolated: str = ""
    """Why the candidate's code did not run only in its own sandbox (SPEC §4.5); "" when it did or never ran."""
    finished_at: str = ""
    """When the parent recorded it (ISO 8601 UTC); "" in checkpoints from before it was recorded."""

    @property
    def finding_codes(self) -> tuple[str, ...]:
        return tuple(sorted({f.code for f in self.findings}))

    def with_external(self, outcome: ExternalOutcome | None) -> CandidateRecord:
        return replace(self, external=outcome)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "ref": self.ref,
            "commit": self.commit,
            "parent_ref": self.parent_ref,
            "status": self.status,
            "score": self.score,
            "metric_name": self.metric_name,
            "reason": self.reason,
            "stdout_tail": self.stdout_tail,
            "stderr_tail": self.stderr_tail,
            "findings": [f.to_json() for f in self.findings],
            "duration_s": self.duration_s,
            "per_item_scores": list(self.per_item_scores) if self.per_item_scores is not None else None,
            "external": self.external.to_json() if self.external is not None else None,
            "sandbox": self.sandbox,
            "based_on": self.based_on,
            "not_isolated": self.not_isolated,
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CandidateRecord:
        status = data["status"]
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        items = data.get("per_item_scores")
        external = data.get("external")
        score = data.get("score")
        return cls(
            index=int(data["index"]),
            ref=str(data["ref"]),
            commit=data.get("commit"),
            parent_ref=str(data.get("parent_ref", "")),
            status=status,
            score=float(score) if score is not None else None,
            metric_name=data.get("metric_name"),
            reason=str(data.get("reason", "")),
            stdout_tail=str(data.get("stdout_tail", "")),
            stderr_tail=str(data.get("stderr_tail", "")),
            findings=tuple(FindingRecord.from_json(f) for f in data.get("findings", [])),
            duration_s=float(data.get("duration_s", 0.0)),
            per_item_scores=tuple(float(x) for x in items) if items is not None else None,
            external=ExternalOutcome.from_json(external) if external is not None else None,
            sandbox=str(data.get("sandbox", "")),
            based_on=str(data.get("based_on", "")),
            not_isolated=str(data.get("not_isolated", "")),
            finished_at=str(data.get("finished_at", "")),
        )


@dataclass(frozen=True)
class ScoredRow:
    """A candidate with its comparison against the baseline (delta and its bootstrap SE)."""

    record: CandidateRecord
    delta: float | None
    stderr: float | None


@dataclass(frozen=True)
class CampaignResult:
    """Everything the scoreboard, the reports and the CLI show."""

    campaign_id: str
    repo: Path
    evaluator: EvaluatorRef
    metric_name: str
    direction: Direction
    baseline: CandidateRecord
    rows: tuple[ScoredRow, ...]
    winner: CandidateRecord | None
    delivered_branch: str | None
    campaign_dir: Path
    sandbox: str = ""
    goal: str = ""
    notes: tuple[str, ...] = field(default=())
    noise: NoiseRule = field(default=NoiseRule())
    within_noise: ScoredRow | None = None
    # ISO 8601 UTC times and the Proctor version that ran it ("" when an old checkpoint lacks them).
    started_at: str = ""
    finished_at: str = ""
    proctor_version: str = ""
    # The evaluator's interpreter: a one-line description, and path/version/source/environment_id for JSON.
    interpreter: str = ""
    interpreter_info: Mapping[str, Any] = field(default_factory=dict)

    @property
    def candidates(self) -> tuple[CandidateRecord, ...]:
        return tuple(row.record for row in self.rows)

    @property
    def not_isolated(self) -> tuple[str, ...]:
        """Every distinct reason some measured code (baseline or candidate) shared the evaluator's sandbox."""
        reasons = [r.not_isolated for r in (self.baseline, *self.candidates) if r.not_isolated]
        return tuple(dict.fromkeys(reasons))

    def count(self, status: Status) -> int:
        return sum(1 for row in self.rows if row.record.status == status)

    @property
    def rejected_candidates(self) -> int:
        return self.count("rejected")

    @property
    def failed_candidates(self) -> int:
        return self.count("failed")

    @property
    def scored_candidates(self) -> int:
        return self.count("scored")

    @property
    def report_path(self) -> Path:
        return self.campaign_dir / "report.html"

    @property
    def scoreboard_path(self) -> Path:
        return self.campaign_dir / "scoreboard.json"

    @property
    def state_path(self) -> Path:
        return self.campaign_dir / "state.json"

    def to_json(self) -> dict[str, Any]:
        """SPEC §5.3 schema 1 (stable; tools parse it), plus the noise rule and the best candidate within noise."""
        return {
            "schema": SCHEMA,
            "campaign_id": self.campaign_id,
            "evaluator": ref_to_json(self.evaluator),
            "metric": {"name": self.metric_name, "direction": self.direction},
            "baseline": {
                "ref": self.baseline.ref,
                "commit": self.baseline.commit,
                "score": self.baseline.score,
            },
            "candidates": [_candidate_json(row) for row in self.rows],
            "winner": (
                {"ref": self.winner.ref, "commit": self.winner.commit, "score": self.winner.score}
                if self.winner is not None
                else None
            ),
            "rejected_candidates": self.rejected_candidates,
            "failed_candidates": self.failed_candidates,
            "delivered_branch": self.delivered_branch,
            "isolation": {"isolated": not self.not_isolated, "not_isolated": list(self.not_isolated)},
            "noise": self.noise.to_json(),
            "interpreter": dict(self.interpreter_info) or None,
            "within_noise": _noisy_json(self.within_noise),
        }


def _noisy_json(row: ScoredRow | None) -> dict[str, Any] | None:
    """The best candidate that improved on the baseline without beating noise (so there is no winner)."""
    if row is None:
        return None
    record = row.record
    return {
        "ref": record.ref,
        "commit": record.commit,
        "score": record.score,
        "delta": row.delta,
        "stderr": row.stderr,
    }


def _candidate_json(row: ScoredRow) -> dict[str, Any]:
    record = row.record
    external = record.external
    return {
        "ref": record.ref,
        "commit": record.commit,
        "status": record.status,
        "score": record.score,
        "delta": row.delta,
        "stderr": row.stderr,
        "findings": [{"code": f.code, "path": f.path, "detail": f.detail} for f in record.findings],
        "duration_s": round(record.duration_s, 3),
        "external_metrics": dict(external.metrics) if external is not None else {},
        "external_evaluation_error": external.error if external is not None and external.error else None,
        "not_isolated": record.not_isolated or None,
    }


def better(a: float, b: float, direction: Direction) -> bool:
    """True when score `a` is strictly better than `b` under `direction`."""
    return a > b if direction == "maximize" else a < b


def compare_rows(baseline: CandidateRecord, records: Sequence[CandidateRecord]) -> tuple[ScoredRow, ...]:
    """Each record with its delta vs a scored baseline and the paired bootstrap SE of that delta."""
    from core.campaign.stats import paired_bootstrap_se

    base_score = baseline.score if baseline.status == "scored" else None
    rows = []
    for record in records:
        delta = stderr = None
        if record.status == "scored" and record.score is not None and base_score is not None:
            delta = record.score - base_score
            stderr = paired_bootstrap_se(baseline.per_item_scores, record.per_item_scores)
        rows.append(ScoredRow(record, delta, stderr))
    return tuple(rows)


@dataclass(frozen=True)
class Pick:
    """The winner, or (when none beats noise) the best candidate that improved only within noise."""

    winner: CandidateRecord | None
    within_noise: ScoredRow | None


def pick_winner(
    baseline_score: float | None,
    rows: Sequence[ScoredRow],
    direction: Direction,
    rule: NoiseRule = DEFAULT_RULE,
) -> Pick:
    """Best scored candidate that beats the baseline beyond noise (core.campaign.verdict); ties go to the
    earlier candidate (SPEC §5.3). With no baseline score, the best scored candidate wins."""
    best: ScoredRow | None = None
    noisy: ScoredRow | None = None
    for row in sorted(rows, key=lambda r: r.record.index):
        record = row.record
        if record.status != "scored" or record.score is None or not math.isfinite(record.score):
            continue
        if baseline_score is not None and not beats_baseline(row.delta, row.stderr, direction, rule):
            if better(record.score, baseline_score, direction) and _improves_on(row, noisy, direction):
                noisy = row
            continue
        if _improves_on(row, best, direction):
            best = row
    if best is not None:
        return Pick(best.record, None)
    return Pick(None, noisy)


def winner_over(
    baseline: CandidateRecord,
    records: Sequence[CandidateRecord],
    direction: Direction,
    rule: NoiseRule = DEFAULT_RULE,
) -> tuple[CandidateRecord | None, tuple[ScoredRow, ...]]:
    """The winner among `records` against a measured `baseline` record, with every record's row; the one rule
    a prompt campaign picks its next parent by and the App's feedback optimization picks its winner by."""
    rows = compare_rows(baseline, records)
    base_score = baseline.score if baseline.status == "scored" else None
    return pick_winner(base_score, rows, direction, rule).winner, rows


def _improves_on(row: ScoredRow, best: ScoredRow | None, direction: Direction) -> bool:
    assert row.record.score is not None
    if best is None or best.record.score is None:
        return True
    return better(row.record.score, best.record.score, direction)
