"""`proctor report`: the trend across a repository's campaigns, never joining scores across evaluator versions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.campaign.report.facts import load_trend
from core.campaign.report.html import render_report
from core.campaign.report.model import build_model
from core.cli import main
from tests.core.campaign.conftest import build_workspace
from tests.core.report import browser, factory

V1, V2 = "1" * 64, "2" * 64


def _campaign(
    repo: Path, cid: str, when: str, evaluator: str, version: int, best: float, **extra: str
) -> None:
    directory = repo / ".proctor" / "campaigns" / cid
    directory.mkdir(parents=True)
    board = {
        "schema": 1, "campaign_id": cid,
        "evaluator": {"version": version, "evaluator_id": evaluator, "provenance": "provided"},
        "metric": {"name": "auc", "direction": "maximize"},
        "baseline": {"ref": "HEAD", "commit": "a" * 40, "score": 0.5},
        "candidates": [
            {"ref": "c/best", "status": "scored", "score": best},
            {"ref": "c/bad", "status": "rejected", "score": None},
        ],
    }  # fmt: skip
    (directory / "scoreboard.json").write_text(json.dumps(board))
    (directory / "state.json").write_text(json.dumps({"created_at": when, **extra}))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = build_workspace(tmp_path / "repo").root
    _campaign(root, "a", "2026-11-01T10:00:00+00:00", V1, 1, 0.61)
    _campaign(root, "b", "2026-11-02T10:00:00+00:00", V1, 1, 0.66, finished_at="2026-11-02T10:05:00+00:00")
    _campaign(root, "c", "2026-11-03T10:00:00+00:00", V2, 2, 0.58)
    _campaign(root, "d", "2026-11-04T10:00:00+00:00", V2, 2, 0.64)
    (root / ".proctor" / "campaigns" / "broken").mkdir()
    (root / ".proctor" / "campaigns" / "broken" / "scoreboard.json").write_text("{not json")
    return root


def test_trend_points_come_from_every_scoreboard_in_time_order(repo: Path) -> None:
    points = load_trend(repo)
    assert [(p.campaign_id, p.version, p.score) for p in points] == [
        ("a", 1, 0.61), ("b", 1, 0.66), ("c", 2, 0.58), ("d", 2, 0.64),
    ]  # fmt: skip
    assert points[1].when == "2026-11-02T10:05:00+00:00"  # the finish time when recorded


def test_proctor_report_writes_the_trend_with_versions_never_joined(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "trend.html"
    assert main(["report", "--repo", str(repo), "--output", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    wide = page[page.index('class="chart trend wide"') : page.index('class="chart trend narrow"')]
    assert wide.count('class="tmark') == 4
    assert wide.count('class="trendline"') == 2  # a–b and c–d; never b–c across the version boundary
    assert wide.count('class="boundary"') == 1
    assert ">v1<" in wide and ">v2<" in wide
    seen = browser.probe(page, 375, tmp_path / "browser")
    assert seen["errors"] == [] and int(seen["scrollWidth"]) <= 375
    browser.screenshot(out, 800, tmp_path / "trend-800.png")


def test_default_output_and_an_empty_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = build_workspace(tmp_path / "repo").root
    assert main(["report", "--repo", str(root)]) == 0
    assert "no campaign under" in capsys.readouterr().out
    assert "No campaign with a scoreboard" in (root / ".proctor" / "report.html").read_text()


def test_bad_repository_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--repo", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["report", "--repo", str(plain)]) == 2
    assert "is not a git repository" in capsys.readouterr().err


def test_a_campaign_report_marks_other_versions_not_comparable(repo: Path) -> None:
    current = factory.demo_like()
    points = load_trend(repo)
    model = build_model(current, trend=points)
    page = render_report(model)
    assert page.count('class="tmark past"') == 8  # wide and narrow layouts, four campaigns each
    assert len(re.findall(r"<td>no \(other version\)</td>", page)) == 4  # none has demo's evaluator id


def test_rerender_one_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = build_workspace(tmp_path / "repo")
    ws.branch("candidate/a", {"solution/predict.py": "print('0.7')\n"})
    assert main(["campaign", "--repo", str(ws.root), "--campaign-id", "r1", "--format", "json"]) == 0
    capsys.readouterr()
    state = json.loads((ws.root / ".proctor/campaigns/r1/state.json").read_text())
    assert all(r["finished_at"] for r in [state["baseline"], *state["records"]])
    report = ws.root / ".proctor/campaigns/r1/report.html"
    assert "recorded 20" in report.read_text()  # when each commit's measurement was recorded
    report.unlink()
    assert main(["report", "--repo", str(ws.root), "--campaign", "r1"]) == 0
    assert "candidate/a" in report.read_text() and "Report:" in capsys.readouterr().out
    assert main(["report", "--repo", str(ws.root), "--campaign", "nope"]) == 2
