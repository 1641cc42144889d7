"""The LLM judge (SPEC §7): balanced multi-sample scoring, pairwise comparison with swapped orders,
deterministic metrics and the blend, a hard cost budget, an answer cache, and the teacher for prompt campaigns.

A campaign opens one `Judge` (so one budget and one cache cover everything it asks) and calls
`judge_outputs(items, judge)`, `compare(a, b, judge)` and `propose_rewrites(prompt, ..., judge=judge)`.
"""

from __future__ import annotations

from core.judge.client import JudgeSettings
from core.judge.engine import Judge
from core.judge.metrics import blend, deterministic_scores
from core.judge.pairwise import Pair, PairwiseReport, PairwiseResult, compare, compare_many
from core.judge.run import Item, ItemResult, JudgeRun, judge_outputs, load_items, load_labels
from core.judge.teacher import Proposals, feedback_from_run, propose_rewrites

__all__ = [
    "Item",
    "ItemResult",
    "Judge",
    "JudgeRun",
    "JudgeSettings",
    "Pair",
    "PairwiseReport",
    "PairwiseResult",
    "Proposals",
    "blend",
    "compare",
    "compare_many",
    "deterministic_scores",
    "feedback_from_run",
    "judge_outputs",
    "load_items",
    "load_labels",
    "propose_rewrites",
]
