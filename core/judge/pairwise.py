"""Pairwise comparison with both orders (SPEC §7): `compare(a, b)` asks "A or B?" twice, swapping the outputs.

A judge that prefers whichever output it reads first answers "A" both times, which maps to a different winner
in each order; such a disagreement counts as a tie, and the share of comparisons whose two orders agree is
reported as the position-consistency rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from core.judge.client import JudgeSettings
from core.judge.engine import Judge, Outcome, Question
from core.judge.parse import PairwiseVerdict, parse_pairwise
from core.judge.prompts import PAIRWISE_TEMPLATE_VERSION, pairwise_messages, pairwise_schema

Winner = Literal["a", "b", "tie"]


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    input: str = ""
    reference: str | None = None
    id: str = ""


@dataclass(frozen=True)
class PairwiseResult:
    pair: Pair
    winner: Winner | None  # None when an order could not be parsed (counted, never guessed)
    consistent: bool | None  # None when an order is missing
    orders: tuple[Winner | None, Winner | None]  # the winner read from (a shown first, b shown first)
    parse_failures: int
    cost_usd: float
    cached: bool


@dataclass(frozen=True)
class PairwiseReport:
    results: tuple[PairwiseResult, ...]
    budget_exhausted: bool

    @property
    def wins_a(self) -> int:
        return sum(1 for r in self.results if r.winner == "a")

    @property
    def wins_b(self) -> int:
        return sum(1 for r in self.results if r.winner == "b")

    @property
    def ties(self) -> int:
        return sum(1 for r in self.results if r.winner == "tie")

    @property
    def undecided(self) -> int:
        return sum(1 for r in self.results if r.winner is None)

    @property
    def position_consistency(self) -> float | None:
        """Share of comparisons whose two orders agree, among those where both orders were read."""
        checked = [r.consistent for r in self.results if r.consistent is not None]
        return sum(checked) / len(checked) if checked else None

    @property
    def preferred(self) -> Winner:
        return "a" if self.wins_a > self.wins_b else "b" if self.wins_b > self.wins_a else "tie"

    @property
    def cost_usd(self) -> float:
        return math.fsum(r.cost_usd for r in self.results)


def _questions(judge: Judge, pair: Pair) -> list[Question]:
    criteria = judge.settings.criteria
    questions = []
    for sample, (first, second, rotation) in enumerate(((pair.a, pair.b, "ab"), (pair.b, pair.a, "ba"))):
        messages = pairwise_messages(
            input_text=pair.input, first=first, second=second, reference=pair.reference, criteria=criteria
        )
        questions.append(
            Question(
                messages=messages,
                template_version=PAIRWISE_TEMPLATE_VERSION,
                rotation=rotation,
                sample=sample,
                schema_name="pairwise_verdict",
                schema=pairwise_schema(),
            )
        )
    return questions


def _read(outcome: Outcome[Any], shown_first: Winner) -> Winner | None:
    if not isinstance(outcome.value, PairwiseVerdict):
        return None
    if outcome.value.winner == "tie":
        return "tie"
    other: Winner = "b" if shown_first == "a" else "a"
    return shown_first if outcome.value.winner == "A" else other


def _result(pair: Pair, ab: Outcome[Any], ba: Outcome[Any]) -> PairwiseResult:
    first, second = _read(ab, "a"), _read(ba, "b")
    if first is None or second is None:
        winner, consistent = None, None
    elif first == second:
        winner, consistent = first, True
    else:
        winner, consistent = "tie", False
    return PairwiseResult(
        pair=pair,
        winner=winner,
        consistent=consistent,
        orders=(first, second),
        parse_failures=sum(1 for o in (ab, ba) if o.status == "parse_failed"),
        cost_usd=ab.cost_usd + ba.cost_usd,
        cached=ab.cached and ba.cached,
    )


def compare_many(judge: Judge, pairs: Sequence[Pair]) -> PairwiseReport:
    """Compare each pair in both orders, with the judge's concurrency and budget."""
    questions = [(q, parse_pairwise) for pair in pairs for q in _questions(judge, pair)]
    outcomes = judge.ask_many(questions)
    results = tuple(_result(pair, outcomes[2 * i], outcomes[2 * i + 1]) for i, pair in enumerate(pairs))
    return PairwiseReport(results=results, budget_exhausted=judge.budget.exhausted)


def compare(
    a: str,
    b: str,
    judge: Judge | JudgeSettings,
    *,
    input_text: str = "",
    reference: str | None = None,
) -> PairwiseResult:
    """Which of two outputs is better: "a", "b", "tie" (including when the two orders disagree) or None."""
    pair = Pair(a=a, b=b, input=input_text, reference=reference)
    if isinstance(judge, Judge):
        return compare_many(judge, [pair]).results[0]
    with Judge.open(judge) as opened:
        return compare_many(opened, [pair]).results[0]
