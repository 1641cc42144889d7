"""Campaign results built from plain values, for the report tests (no campaign is run)."""

from __future__ import annotations

import random
from pathlib import Path

from core.campaign.external import ExternalOutcome
from core.campaign.model import CampaignResult, CandidateRecord, FindingRecord, compare_rows, pick_winner
from core.registry import EvaluatorRef

EVALUATOR = EvaluatorRef(2, "ab" * 32, "provided")
HOSTILE = '<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">'


def items(value: float, seed: int, n: int = 30) -> tuple[float, ...]:
    rng = random.Random(seed)
    return tuple(value + rng.uniform(-0.05, 0.05) for _ in range(n))


def record(
    index: int,
    ref: str,
    status: str = "scored",
    score: float | None = None,
    *,
    seed: int = 0,
    **fields: object,
) -> CandidateRecord:
    per_item = items(score, seed) if score is not None else None
    return CandidateRecord(
        index=index,
        ref=ref,
        commit=f"{index:040x}",
        parent_ref="main",
        status=status,  # type: ignore[arg-type]
        score=score,
        metric_name="auc" if score is not None else None,
        per_item_scores=per_item,
        duration_s=0.5 + index / 10,
        **fields,  # type: ignore[arg-type]
    )


def result(
    baseline: CandidateRecord,
    candidates: list[CandidateRecord],
    *,
    direction: str = "maximize",
    sandbox: str = "namespace via bwrap (auto)",
    campaign_id: str = "c1",
    repo: Path = Path("/nonexistent/repo"),
) -> CampaignResult:
    base_score = baseline.score if baseline.status == "scored" else None
    rows = compare_rows(baseline, candidates)
    pick = pick_winner(base_score, rows, direction)  # type: ignore[arg-type]
    return CampaignResult(
        campaign_id=campaign_id,
        repo=repo,
        evaluator=EVALUATOR,
        metric_name="auc",
        direction=direction,  # type: ignore[arg-type]
        baseline=baseline,
        rows=rows,
        winner=pick.winner,
        within_noise=pick.within_noise,
        delivered_branch=None,
        campaign_dir=repo / ".proctor" / "campaigns" / campaign_id,
        sandbox=sandbox,
        started_at="2026-12-01T09:00:00+00:00",
        finished_at="2026-12-01T09:03:05+00:00",
        proctor_version="0.1.0",
    )


def demo_like() -> CampaignResult:
    """Five candidates, one of each kind, as the demo has them."""
    base = record(0, "HEAD", score=0.8582, seed=1)
    return result(
        base,
        [
            record(1, "candidate/worse", score=0.7376, seed=2),
            record(
                2,
                "candidate/edits-evaluator",
                "rejected",
                findings=(FindingRecord("IN001", "reject", "kapso_evaluation/evaluate.py", "changed"),),
                reason="integrity: IN001",
            ),
            record(3, "candidate/honest", score=0.8805, seed=3, stdout_tail="auc: 0.8805\n"),
            record(
                4, "candidate/crashes", "failed", reason="exit 1: KeyError: 'tenure'", stderr_tail="boom\n"
            ),
        ],
    )


def many(n: int = 40, *, seed: int = 7) -> CampaignResult:
    """`n` generated candidates with long refs: most scored, some rejected, some failed, one with metrics."""
    rng = random.Random(seed)
    base = record(0, "main", score=0.80, seed=99)
    records = []
    for i in range(1, n + 1):
        ref = f"proctor/generated/20261201-085707-{i:03d}ab/iteration-{i}"
        if i % 9 == 0:
            records.append(
                record(
                    i,
                    ref,
                    "rejected",
                    findings=(
                        FindingRecord("IN005", "reject", f"kapso_evaluation/plant_{i}.py", "new source"),
                    ),
                    reason="integrity: IN005",
                )
            )
        elif i % 13 == 0:
            records.append(
                record(i, ref, "failed", reason="timed out after 60 s", stderr_tail="still going\n")
            )
        else:
            extra = {}
            if i == 5:
                extra["external"] = ExternalOutcome({"latency_ms": 12.5}, "latency_ms", {}, {}, {}, "")
            records.append(record(i, ref, score=round(0.8 + rng.uniform(-0.08, 0.06), 4), seed=i, **extra))
    return result(base, records, campaign_id="gen40")


def hostile() -> CampaignResult:
    """A candidate whose ref, output, reason and finding carry markup and script."""
    base = record(0, "main", score=0.5, seed=1)
    evil_scored = record(
        1, f"candidate/{HOSTILE}", score=0.6, seed=2, stdout_tail=HOSTILE, stderr_tail=HOSTILE
    )
    evil_failed = record(
        2,
        f"x{HOSTILE}",
        "failed",
        reason=HOSTILE,
        stdout_tail=HOSTILE,
        findings=(FindingRecord("IN011", "flag", HOSTILE, HOSTILE),),
    )
    return result(base, [evil_scored, evil_failed], campaign_id="hostile")
