"""Campaigns (SPEC §5): measure many candidates against a baseline, reject the tampered, rank, deliver.

`run_campaign` is the entry point; the external iteration evaluator types are re-exported so callers write
`from core.campaign import IterationEvaluationResult` as Kapso users write `from kapso import ...`.
"""

from __future__ import annotations

from core.campaign.engine import load_result, run_campaign
from core.campaign.external import (
    CandidateNode,
    IterationEvaluationContext,
    IterationEvaluationResult,
    IterationEvaluator,
)
from core.campaign.model import CampaignResult, CandidateRecord, FindingRecord
from core.campaign.recording import ProgressEvent
from core.errors import IterationEvaluationError, IterationEvaluationValidationError

__all__ = [
    "CampaignResult",
    "CandidateNode",
    "CandidateRecord",
    "FindingRecord",
    "IterationEvaluationContext",
    "IterationEvaluationError",
    "IterationEvaluationResult",
    "IterationEvaluationValidationError",
    "IterationEvaluator",
    "ProgressEvent",
    "load_result",
    "run_campaign",
]
