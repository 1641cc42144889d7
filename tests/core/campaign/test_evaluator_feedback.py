"""The feedback document an evaluator writes for its prompt campaign: what the teacher may read survives the
round trip (judged search items only, texts cut), and a document that is not one is ignored (`None`), never
an exception in the campaign that reads it: its bytes come from an evaluator run over candidate outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.campaign.prompt_source.evaluator_feedback import TEXT_EXCERPT, parse_feedback, write_feedback
from core.judge import JudgeRun, JudgeSettings
from core.judge.run import Item, ItemResult, SampleResult
from core.judge.stats import MeanSE


def _result(item_id: str, *, judged: bool, output: str = "an answer") -> ItemResult:
    samples = (
        (SampleResult(0, "r0", 0.75, {"faithful": 0.5}, "because " * 600, False, 0.0),) if judged else ()
    )
    return ItemResult(
        item=Item(item_id, "a ticket", output, "the reference"),
        judged=judged,
        samples=samples,
        llm_score=0.75 if judged else None,
        deterministic=None,
        score=0.75 if judged else None,
        parse_failures=0 if judged else 1,
        cost_usd=0.001,
        cached=False,
    )


def _run() -> JudgeRun:
    return JudgeRun(
        settings=JudgeSettings(cache_path=None),
        items=[_result("s1", judged=True, output="x" * (TEXT_EXCERPT + 50)), _result("s2", judged=False)],
        summary=MeanSE(0.75, 0.0, 1, 2),
        spent_usd=0.002,
        budget_exhausted=False,
        retries=0,
        rate_limited=0,
        server_errors=0,
        no_answer=0,
        cache_hits=0,
        calls=2,
        last_problem=None,
    )


def test_the_round_trip_keeps_the_judged_items_cut_to_the_excerpt(tmp_path: Path) -> None:
    path = tmp_path / "feedback.json"
    write_feedback(path, _run(), spent_usd=0.25, budget_exhausted=True)
    report = parse_feedback(path.read_bytes())
    assert report is not None and report.run is not None
    assert (report.spent_usd, report.budget_exhausted) == (0.25, True)
    assert [r.item.id for r in report.run.items] == ["s1"]
    item = report.run.items[0]
    assert len(item.item.output) == TEXT_EXCERPT
    assert item.samples[0].criteria == {"faithful": 0.5}
    assert len(item.samples[0].reasoning) == TEXT_EXCERPT
    assert "faithful 0.50" in report.text() and "'s1'" in report.text()


def _document(**run: Any) -> bytes:
    return json.dumps({"schema": 1, "spent_usd": 0.1, "budget_exhausted": False, "run": run}).encode()


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff not utf-8",
        b"[1, 2]",
        json.dumps({"schema": 2, "spent_usd": 0.1}).encode(),
        _document(items=7),
        _document(items=[{"id": "a", "samples": [{"score": 1, "criteria": ["a", "list"]}]}]),
        _document(items=[{"id": "a", "samples": [{"score": 1, "criteria": "a string"}]}]),
        _document(items=[{"id": "a", "samples": 3}]),
    ],
    ids=["bytes", "list", "schema", "items-int", "criteria-list", "criteria-str", "samples-int"],
)
def test_a_document_that_is_not_one_is_ignored(raw: bytes) -> None:
    assert parse_feedback(raw) is None


def test_a_document_over_the_limit_is_ignored() -> None:
    from core.campaign.prompt_source.evaluator_feedback import FEEDBACK_LIMIT_BYTES

    padding = "x" * FEEDBACK_LIMIT_BYTES
    assert parse_feedback(_document(mean=0.5, items=[], pad=padding)) is None
    assert parse_feedback(_document(mean=0.5, items=[])) is not None
