"""`proctor demo DIR`: the main job on the bundled example (SPEC §5.7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main


def test_demo_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "demo"
    assert main(["demo", str(target)]) == 0
    out = capsys.readouterr().out
    board = json.loads((target / ".proctor/campaigns/demo/scoreboard.json").read_text())
    rows = {c["ref"]: c for c in board["candidates"]}
    assert {ref: row["status"] for ref, row in rows.items()} == {
        "candidate/crashes": "failed",
        "candidate/edits-evaluator": "rejected",
        "candidate/honest": "scored",
        "candidate/pyc-plant": "rejected",
        "candidate/reads-answers": "scored",
        "candidate/worse": "scored",
    }
    assert board["winner"]["ref"] == "candidate/honest"
    assert rows["candidate/honest"]["delta"] > 0 > rows["candidate/worse"]["delta"]
    assert rows["candidate/honest"]["stderr"] is not None  # the evaluator reports per-item scores
    assert {f["code"] for f in rows["candidate/edits-evaluator"]["findings"]} == {"IN001"}
    pyc = rows["candidate/pyc-plant"]["findings"]
    assert any(f["code"] == "IN005" and "__pycache__" in f["path"] for f in pyc)
    assert board["delivered_branch"] == "proctor/delivered/demo"
    # What the user sees: each step, the scoreboard, the rejected-candidate report, the report's path.
    for text in (
        "$ proctor check",
        "$ proctor verify",
        "$ proctor campaign",
        "Rejected candidates:",
        "IN005",
    ):
        assert text in out
    report = target / ".proctor/campaigns/demo/report.html"
    assert f"Report: {report}" in out
    assert "<svg" in report.read_text()
    # The planted bytecode really changes the score where nothing guards the suite.
    line = next(line for line in out.splitlines() if line.startswith("Without the guard"))
    planted = float(line.split("prints `auc: ")[1].split("`")[0])
    assert planted > board["baseline"]["score"] + 0.01
    # Reading the answers scores 1.0 by hand; in its own sandbox the candidate sees none of them and falls
    # back to the baseline's model: exactly the baseline's score, no winner.
    line = next(line for line in out.splitlines() if line.startswith("Without isolation"))
    assert "prints `auc: 1.0000`" in line
    assert rows["candidate/reads-answers"]["score"] == board["baseline"]["score"]
    assert board["isolation"] == {"isolated": True, "not_isolated": []}
    assert (tmp_path / "demo-holdout" / "churn_labels.csv").is_file()


def test_demo_refuses_a_non_empty_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    assert main(["demo", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "keep.txt").read_text() == "mine"
