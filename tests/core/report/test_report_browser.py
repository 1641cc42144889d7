"""The campaign report opened in headless Chromium as a reader would, at phone, laptop and wide widths.

No script error or CSP violation, no sideways page scroll, the scoreboard in rank order, a visible chart mark
for every measured commit, sorting that works; and markup a candidate controls (its branch name, commit
message, output, finding paths) stays text. Screenshots are left in the test's tmp_path.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from core.campaign.model import CampaignResult
from core.campaign.report.html import render_report
from core.campaign.report.model import ChangedFile, CommitFacts, ReportModel, build_model
from core.cli import main
from tests.core.campaign.conftest import build_workspace, git, predict
from tests.core.report import browser, factory

WIDTHS = (375, 800, 1400)


def _facts(result: CampaignResult) -> dict[str, CommitFacts]:
    return {
        r.commit or "": CommitFacts(
            f"Idea {r.index}: tune the model\n\nLonger explanation.", (ChangedFile("m.py", 3, 1),)
        )
        for r in result.candidates
    }


def _check_layout_and_order(model: ReportModel, seen: dict[str, object], width: int) -> None:
    assert seen["errors"] == [], seen["errors"]
    assert seen["innerWidth"] == width
    assert int(seen["scrollWidth"]) <= int(seen["innerWidth"]), "the page scrolls sideways"  # type: ignore[call-overload]
    rows = seen["rows"]
    assert isinstance(rows, list)
    assert [r["ref"] for r in rows] == [r.ref for r in model.rows]
    ranked = [float(r["score"]) for r in rows if r["group"] == "0"]
    assert ranked == sorted(ranked, reverse=model.header.direction == "maximize") and len(ranked) >= 2
    assert all(not math.isnan(s) for s in ranked)
    marks = seen["marks"]
    assert isinstance(marks, list)
    assert sorted(m["ref"] for m in marks) == sorted(r.ref for r in model.rows), (
        "a commit has no visible mark"
    )
    assert all(m["label"] for m in marks)
    assert seen["buttons"] == 5
    by_ref = seen["sortedByRef"]
    assert isinstance(by_ref, list)
    for group in ("0", "1", "2"):
        refs = [ref for ref, row in zip(by_ref, rows, strict=True) if row["group"] == group]
        assert refs == sorted(refs, key=str.lower) or refs == sorted(refs), f"group {group} not sorted by ref"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("kind", ["demo", "forty"])
def test_report_in_chromium(kind: str, width: int, tmp_path: Path) -> None:
    result = factory.demo_like() if kind == "demo" else factory.many(40)
    model = build_model(result, facts=_facts(result))
    page = render_report(model)
    seen = browser.probe(page, width, tmp_path)
    _check_layout_and_order(model, seen, width)
    assert "Winner " in str(seen["text"])
    page_path = tmp_path / "report.html"
    page_path.write_text(page, encoding="utf-8")
    browser.screenshot(page_path, width, tmp_path / f"report-{kind}-{width}.png")


def test_the_probe_sees_injected_markup_when_a_page_does_not_escape(tmp_path: Path) -> None:
    """The control for the hostile tests below: the same payload, written raw, does inject."""
    raw = (
        '<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="script-src \'unsafe-inline\'">'
        f"</head><body><p>{factory.HOSTILE}</p></body></html>"
    )
    seen = browser.probe(raw, 800, tmp_path)
    assert seen["imgs"] == 1


@pytest.mark.parametrize("width", [375, 1400])
def test_hostile_candidate_text_cannot_inject_markup(width: int, tmp_path: Path) -> None:
    result = factory.hostile()
    facts = {
        r.commit or "": CommitFacts(factory.HOSTILE, (ChangedFile(factory.HOSTILE, 1, 1),))
        for r in result.candidates
    }
    model = build_model(result, facts=facts)
    seen = browser.probe(render_report(model), width, tmp_path)
    assert seen["errors"] == [] and seen["imgs"] == 0 and seen["pwned"] == 0
    assert seen["scripts"] == 2  # the report's sorter and the probe: nothing else
    assert factory.HOSTILE in str(seen["text"])  # shown, as text
    assert int(seen["scrollWidth"]) <= width  # type: ignore[call-overload]


HOSTILE_REF = 'candidate/<script>window.__pwned=1</script>"><img/src=x/onerror=window.__pwned=2>'


def test_a_real_campaign_with_a_hostile_branch_message_and_output(tmp_path: Path) -> None:
    """End to end: `proctor campaign` on a repository whose candidate carries markup everywhere it can."""
    ws = build_workspace(tmp_path / "repo")
    ws.branch(HOSTILE_REF, {"solution/predict.py": predict("0.7", before=f"print({factory.HOSTILE!r})\n")})
    git(ws.root, "checkout", "--quiet", HOSTILE_REF)
    git(ws.root, "commit", "--quiet", "--amend", "-m", f"subject {factory.HOSTILE}\n\nbody {factory.HOSTILE}")
    git(ws.root, "checkout", "--quiet", "main")
    ws.branch("candidate/plain", {"solution/predict.py": predict("0.6")})
    assert (
        main(
            ["campaign", "--repo", str(ws.root), "--campaign-id", "h1", "--parallel", "1", "--format", "json"]
        )
        == 0
    )
    page = (ws.root / ".proctor/campaigns/h1/report.html").read_text(encoding="utf-8")
    assert "<img" not in page and page.count("<script") == 1
    seen = browser.probe(page, 375, tmp_path / "b")
    assert seen["errors"] == [] and seen["imgs"] == 0 and seen["pwned"] == 0 and seen["scripts"] == 2
    text = str(seen["text"])
    assert HOSTILE_REF in text  # the ref, as text
    assert f"subject {factory.HOSTILE}" in text  # the commit message's subject in the row summary
    rows = seen["rows"]
    assert isinstance(rows, list) and [r["ref"] for r in rows][:1] == [HOSTILE_REF]  # 0.7 ranks first
