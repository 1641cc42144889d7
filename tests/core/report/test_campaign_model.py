"""The report's data model: ranking, groups, verdict, header, trend points; and the chart's arithmetic."""

from __future__ import annotations

import html
import json
import math
from dataclasses import replace
from html.parser import HTMLParser

import pytest

from core.campaign.report.chart import (
    WIDE,
    common_ref_prefix,
    nice_ticks,
    score_chart,
    shorten_middle,
    tick_text,
)
from core.campaign.report.html import render_report
from core.campaign.report.model import (
    CommitFacts,
    build_model,
    duration_between,
    standard_error,
    tail_text,
    trend_point,
)
from core.campaign.state import CampaignState
from tests.core.report import factory


def test_rows_are_ranked_by_score_with_the_baseline_as_a_row_and_unscored_grouped_below() -> None:
    model = build_model(factory.demo_like())
    assert [(r.ref, r.group, r.rank) for r in model.rows] == [
        ("candidate/honest", "ranked", 1),
        ("HEAD", "ranked", None),
        ("candidate/worse", "ranked", 2),
        ("candidate/edits-evaluator", "rejected", None),
        ("candidate/crashes", "failed", None),
    ]
    honest, base = model.rows[0], model.rows[1]
    assert honest.is_winner and honest.mark == "★" and honest.label == "winner"
    assert base.is_baseline and base.mark == "◆" and base.delta_text == ""
    assert model.rows[3].mark == "✕" and model.rows[3].reason == "IN001 kapso_evaluation/evaluate.py"
    assert model.rows[4].mark == "▲" and model.rows[4].reason == "exit 1: KeyError: 'tenure'"
    assert model.rows[3].findings[0].doc_url.endswith("#integrity-fingerprints-guard-registry")
    assert model.rows[3].findings[0].title == "protected file changed"


def test_minimize_ranks_the_lowest_score_first() -> None:
    base = factory.record(0, "HEAD", score=0.5, seed=1)
    low, high = factory.record(1, "low", score=0.2, seed=2), factory.record(2, "high", score=0.9, seed=3)
    model = build_model(factory.result(base, [high, low], direction="minimize"))
    assert [r.ref for r in model.ranked] == ["low", "HEAD", "high"]
    assert model.ranked[0].is_winner


def test_a_failed_baseline_goes_to_the_failed_group_and_the_verdict_says_so() -> None:
    base = factory.record(0, "HEAD", "failed", reason="exit 2: broken")
    result = factory.result(base, [factory.record(1, "a", score=0.4, seed=2)])
    model = build_model(result)
    assert [(r.ref, r.group) for r in model.rows] == [("a", "ranked"), ("HEAD", "failed")]
    assert model.rows[1].label == "baseline failed" and model.baseline_score is None
    assert model.verdict.startswith("The baseline failed (exit 2: broken): there is no reference score.")
    assert "Winner a: auc 0.4000" in model.verdict


def test_verdicts() -> None:
    model = build_model(factory.demo_like())
    assert model.verdict.startswith("Winner candidate/honest: auc 0.8805, +0.0223 ± ")
    assert model.verdict.endswith("over the baseline.")
    delivered = replace(factory.demo_like(), delivered_branch="proctor/delivered/c1")
    assert build_model(delivered).verdict.endswith(", delivered as branch proctor/delivered/c1.")
    base = factory.record(0, "HEAD", score=0.9, seed=1)
    none = factory.result(base, [factory.record(1, "a", score=0.8, seed=2)])
    assert build_model(none).verdict.startswith("No candidate beat the baseline (auc 0.9000); the best, a,")
    rejected = factory.record(1, "r", "rejected", reason="integrity: IN001")
    assert build_model(factory.result(base, [rejected])).verdict == (
        "No candidate could be scored: 1 rejected, 0 failed."
    )


def test_a_best_candidate_within_noise_is_named_in_the_verdict() -> None:
    from core.campaign.verdict import NoiseRule

    base = factory.record(0, "HEAD", score=0.5, seed=1)
    close = factory.record(1, "close", score=0.5001, seed=2)
    result = factory.result(base, [close])
    result = replace(result, winner=None, within_noise=result.rows[0], noise=NoiseRule(threshold=0.01))
    verdict = build_model(result).verdict
    assert verdict.startswith("No candidate beat the baseline beyond noise: best candidate close")
    assert "nothing delivered" in verdict


def test_header_times_versions_and_isolation() -> None:
    model = build_model(factory.demo_like(), proctor_version="9.9")
    h = model.header
    assert h.duration_s == 185.0 and h.proctor_version == "0.1.0"  # the version that ran it wins
    assert h.evaluator_version == 2 and h.provenance == "provided" and h.isolated
    assert h.interpreter == ""
    python = replace(factory.demo_like(), interpreter="/usr/bin/python3.11 (3.11.2, config python)")
    assert build_model(python).header.interpreter == "/usr/bin/python3.11 (3.11.2, config python)"
    assert "<dt>Interpreter</dt><dd>/usr/bin/python3.11 (3.11.2, config python)</dd>" in render_report(
        build_model(python)
    )
    old = replace(factory.demo_like(), started_at="", finished_at="", proctor_version="")
    assert build_model(old, proctor_version="9.9").header.proctor_version == "9.9"
    assert build_model(old).header.duration_s is None
    process = replace(factory.demo_like(), sandbox="process (explicitly configured)")
    assert not build_model(process).header.isolated


def test_a_candidate_that_shared_the_evaluator_sandbox_makes_the_report_say_not_isolated() -> None:
    demo = factory.demo_like()
    leaky = replace(
        demo.rows[0].record, not_isolated="the evaluator imports the candidate in-process (EV014)"
    )
    result = replace(demo, rows=(replace(demo.rows[0], record=leaky), *demo.rows[1:]))
    model = build_model(result)
    assert not model.header.isolated
    assert model.header.not_isolated == ("the evaluator imports the candidate in-process (EV014)",)
    page = render_report(model)
    body = page[page.index("<main>") :]
    assert body.startswith(
        '<main><p class="banner" role="alert"><strong>Not isolated:</strong> the evaluator'
    )
    assert page.count("· not isolated</span>") == 1
    everyone = replace(
        demo,
        baseline=replace(demo.baseline, not_isolated="process level"),
        rows=tuple(replace(r, record=replace(r.record, not_isolated="process level")) for r in demo.rows),
    )
    page = render_report(build_model(everyone))
    assert (
        "· not isolated</span>" not in page
        and page.count('role="alert"><strong>Not isolated:</strong> process level') == 1
    )


def test_baseline_band_uses_the_standard_error_of_its_per_item_scores() -> None:
    model = build_model(factory.demo_like())
    base = factory.demo_like().baseline
    assert model.baseline_se == pytest.approx(standard_error(base.per_item_scores))
    assert standard_error([1.0]) is None and standard_error(None) is None
    assert standard_error([1.0, 3.0]) == pytest.approx(1.0)


def test_facts_and_external_metrics_reach_their_rows() -> None:
    result = factory.many(12)
    facts = {r.commit or "": CommitFacts(message=f"idea {r.index}") for r in result.candidates}
    model = build_model(result, facts=facts)
    row = next(r for r in model.rows if r.index == 5)
    assert row.facts == CommitFacts(message="idea 5")
    assert row.external_metrics == (("latency_ms", 12.5),)


def test_output_tails_are_capped_at_a_line_start() -> None:
    text = "".join(f"line {i}\n" for i in range(2000))
    cut = tail_text(text, 100)
    assert cut.startswith("…line ") and len(cut) <= 101 and cut.endswith("line 1999\n")
    assert tail_text("short") == "short"


def test_old_checkpoints_without_the_new_fields_still_load() -> None:
    state = {
        "schema": 1, "campaign_id": "old", "created_at": "2026-01-01T00:00:00+00:00", "baseline_ref": "HEAD",
        "fingerprint": {"evaluator_id": "e", "command": "c", "baseline_commit": "b", "candidate_source": {}},
        "evaluator": {"version": 0, "evaluator_id": "e", "provenance": "provided"},
        "metric": {"name": "auc", "direction": "maximize"}, "goal": "", "sandbox": "process",
    }  # fmt: skip
    state["records"] = [{"index": 1, "ref": "a", "status": "scored", "score": 0.5}]
    loaded = CampaignState.from_json(state)
    assert loaded.records[0].finished_at == "" and loaded.records[0].not_isolated == ""
    assert loaded.finished_at == "" and loaded.proctor_version == ""
    again = CampaignState.from_json(json.loads(json.dumps(replace(loaded, finished_at="x").to_json())))
    assert again.finished_at == "x"


def test_trend_point_takes_the_best_score_in_the_metric_direction() -> None:
    board = factory.demo_like().to_json()
    point = trend_point(board, "2026-12-01T09:00:00+00:00")
    assert point is not None and point.score == 0.8805 and point.version == 2
    board["metric"]["direction"] = "minimize"
    low = trend_point(board, "t")
    assert low is not None and low.score == 0.7376
    assert trend_point({"schema": 1}, "t") is None
    assert trend_point({**board, "candidates": "nope"}, "t") is None


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (0.7233, 0.8948, [0.7, 0.75, 0.8, 0.85, 0.9]),
        (0.0, 1.0, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (12.0, 97.0, [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]),
        (-3.0, 3.0, [-4.0, -2.0, 0.0, 2.0, 4.0]),
    ],
)
def test_nice_ticks_are_one_two_or_five_times_a_power_of_ten(
    lo: float, hi: float, expected: list[float]
) -> None:
    ticks = nice_ticks(lo, hi)
    assert ticks == pytest.approx(expected)
    step = ticks[1] - ticks[0]
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 6) in (1.0, 2.0, 5.0)


def test_nice_ticks_widen_a_single_value_and_format_without_noise() -> None:
    ticks = nice_ticks(0.5, 0.5)
    assert ticks[0] < 0.5 < ticks[-1]
    assert tick_text(0.30000000000000004, 0.05) == "0.30" and tick_text(-0.0, 0.1) == "0"


def test_shorten_middle_keeps_both_ends() -> None:
    ref = "proctor/generated/20261201-085707-024ab/iteration-24"
    short = shorten_middle(ref, 20)
    assert len(short) == 20 and short.startswith("proctor/g") and short.endswith("ation-24") and "…" in short
    assert shorten_middle("short", 20) == "short"


def test_duration_between_ignores_unparseable_times() -> None:
    assert duration_between("2026-01-01T00:00:00+00:00", "2026-01-01T00:01:00+00:00") == 60.0
    assert duration_between("", "x") is None


def test_chart_labels_drop_the_prefix_every_candidate_shares() -> None:
    model = build_model(factory.many(12))
    assert common_ref_prefix(model) == "proctor/generated/20261201-085707-"
    page = score_chart(model, WIDE)
    assert ">1. " in page and "(baseline)</text>" in page
    assert common_ref_prefix(build_model(factory.demo_like())) == "candidate/"


class _Structure(HTMLParser):
    """What a reader without JavaScript gets: header cells, rows, chart marks, and any element a page has."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.th_without_scope = 0
        self.rows: list[str] = []
        self.marks: list[str] = []
        self.unlabelled_marks = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "th" and "scope" not in a:
            self.th_without_scope += 1
        if tag == "tbody" and "cand" in (a.get("class") or "").split():
            self.rows.append(a.get("data-ref") or "")
        if tag == "g" and (a.get("class") or "").startswith("mark "):
            self.marks.append(a.get("data-ref") or "")
            self.unlabelled_marks += not a.get("aria-label")


def test_without_javascript_the_page_is_ranked_labelled_and_scoped() -> None:
    model = build_model(factory.many(40))
    parsed = _Structure()
    parsed.feed(render_report(model))
    assert parsed.rows == [r.ref for r in model.rows]
    assert sorted(parsed.marks) == sorted([r.ref for r in model.rows] * 2)  # wide and narrow charts
    assert parsed.th_without_scope == 0 and parsed.unlabelled_marks == 0
    assert parsed.tags.count("details") == len(model.rows)
    assert parsed.tags.count("script") == 1 and "img" not in parsed.tags and "link" not in parsed.tags


def test_hostile_text_adds_no_element() -> None:
    result = factory.hostile()
    facts = {r.commit or "": CommitFacts(factory.HOSTILE, ()) for r in result.candidates}
    page = render_report(build_model(result, facts=facts))
    parsed = _Structure()
    parsed.feed(page)
    assert parsed.tags.count("script") == 1 and "img" not in parsed.tags
    assert html.escape(factory.HOSTILE) in page


@pytest.mark.parametrize(
    "case",
    ["no candidates", "all rejected", "baseline failed, nothing scored", "one scored, no per-item scores"],
)
def test_edge_cases_render_a_complete_page(case: str) -> None:
    base = factory.record(0, "HEAD", score=0.5, seed=1)
    rejected = factory.record(1, "r", "rejected", reason="integrity: IN001")
    candidates = {
        "no candidates": (base, []),
        "all rejected": (base, [rejected]),
        "baseline failed, nothing scored": (factory.record(0, "HEAD", "failed", reason="exit 1"), [rejected]),
        "one scored, no per-item scores": (
            replace(base, per_item_scores=None),
            [replace(factory.record(1, "a", score=0.7), per_item_scores=None)],
        ),
    }[case]
    model = build_model(factory.result(*candidates))
    page = render_report(model)
    parsed = _Structure()
    parsed.feed(page)
    assert parsed.rows == [r.ref for r in model.rows] and page.rstrip().endswith("</html>")
    assert sorted(parsed.marks) == sorted([r.ref for r in model.rows] * 2)
