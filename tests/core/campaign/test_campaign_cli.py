"""`proctor campaign` end to end: statuses, schema 1 JSON, winner, delivery, persistence, refusals."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from tests.core.campaign.conftest import CONFIG, Workspace, git, predict

SCHEMA_KEYS = {
    "schema",
    "campaign_id",
    "evaluator",
    "metric",
    "baseline",
    "candidates",
    "winner",
    "rejected_candidates",
    "failed_candidates",
    "delivered_branch",
    "noise",
    "within_noise",
    "isolation",
    "interpreter",
}
CANDIDATE_KEYS = {
    "ref",
    "commit",
    "status",
    "score",
    "delta",
    "stderr",
    "findings",
    "duration_s",
    "external_metrics",
    "external_evaluation_error",
    "not_isolated",
}


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["campaign", "--format", "json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def by_ref(board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["ref"]: c for c in board["candidates"]}


def test_statuses_are_distinct_and_the_honest_candidate_wins(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace
    ws.branch("candidate/better", {"solution/predict.py": predict("0.75")})
    ws.branch("candidate/worse", {"solution/predict.py": predict("0.25")})
    ws.branch("candidate/same", {"solution/predict.py": predict("0.5")})
    ws.branch(
        "candidate/edits-evaluator",
        {
            "kapso_evaluation/evaluate.py": (ws.root / "kapso_evaluation/evaluate.py").read_text()
            + "\n# tweak\n"
        },
    )
    ws.branch("candidate/pyc", {"kapso_evaluation/__pycache__/metrics.cpython-311.pyc": b"\x00planted"})
    ws.branch("candidate/crash", {"solution/predict.py": "raise SystemExit(3)\n"})
    ws.branch("candidate/nan", {"solution/predict.py": predict("nan")})
    ws.branch(
        "candidate/binary",
        {"solution/predict.py": "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe garbage\\n0.9\\n')\n"},
    )
    ws.branch("candidate/flood", {"solution/predict.py": "print('x' * 3_000_000)\nprint(0.6)\n"})
    ws.branch("candidate/hang", {"solution/predict.py": "import time\ntime.sleep(600)\n"})
    ws.branch("candidate/data", {"kapso_datasets/data.csv": "x,y\n1,1\n"})

    code, board = run_json(capsys, "--repo", str(ws.root), "--campaign-id", "c1", "--deliver")
    assert code == 0
    assert set(board) == SCHEMA_KEYS and board["schema"] == 1
    assert all(set(c) == CANDIDATE_KEYS for c in board["candidates"])
    rows = by_ref(board)
    status = {ref: row["status"] for ref, row in rows.items()}
    assert status == {
        "candidate/better": "scored",
        "candidate/binary": "failed",
        "candidate/crash": "failed",
        "candidate/data": "rejected",
        "candidate/edits-evaluator": "rejected",
        "candidate/flood": "scored",
        "candidate/hang": "failed",
        "candidate/nan": "failed",
        "candidate/pyc": "rejected",
        "candidate/same": "scored",
        "candidate/worse": "scored",
    }
    # Glob matches are measured in ref-name order.
    assert [c["ref"] for c in board["candidates"]] == sorted(rows)
    assert {f["code"] for f in rows["candidate/edits-evaluator"]["findings"]} == {"IN001"}
    assert rows["candidate/edits-evaluator"]["findings"][0]["path"] == "kapso_evaluation/evaluate.py"
    assert "IN005" in {f["code"] for f in rows["candidate/pyc"]["findings"]}
    assert "IN010" in {f["code"] for f in rows["candidate/data"]["findings"]}
    for ref in ("candidate/edits-evaluator", "candidate/pyc", "candidate/crash", "candidate/hang"):
        assert rows[ref]["score"] is None and rows[ref]["delta"] is None
    assert board["rejected_candidates"] == 3 and board["failed_candidates"] == 4
    assert board["metric"] == {"name": "score", "direction": "maximize"}
    assert board["baseline"]["score"] == 0.5 and board["baseline"]["ref"] == "HEAD"
    better = rows["candidate/better"]
    assert better["delta"] == pytest.approx(0.25)
    assert better["stderr"] == 0.0  # the per-item scores shift uniformly
    assert rows["candidate/same"]["delta"] == 0.0
    assert board["winner"]["ref"] == "candidate/better"
    assert board["delivered_branch"] == "proctor/delivered/c1"
    assert git(ws.root, "rev-parse", "proctor/delivered/c1").strip() == better["commit"]
    assert board["evaluator"]["version"] == 0 and len(board["evaluator"]["evaluator_id"]) == 64

    state = json.loads((ws.root / ".proctor/campaigns/c1/state.json").read_text())
    records = {r["ref"]: r for r in state["records"]}
    assert "timed out" in records["candidate/hang"]["reason"]
    assert "exit" in records["candidate/crash"]["reason"]
    assert "UTF-8" in records["candidate/binary"]["reason"]
    assert "no score" in records["candidate/nan"]["reason"]
    assert "the candidate exited" in records["candidate/crash"]["stderr_tail"]

    report = (ws.root / ".proctor/campaigns/c1/report.html").read_text()
    assert "<svg" in report and 'class="baseline"' in report
    assert 'class="mark rejected"' in report and 'class="mark failed"' in report
    assert "kapso_evaluation/evaluate.py" in report and board["evaluator"]["evaluator_id"] in report
    # Self-contained: one inline script (the table sorter, allowed by hash in the CSP), nothing loaded.
    assert report.count("<script") == 1 and "<script>" in report and " src=" not in report
    assert "http://" not in report.replace("http://www.w3.org/2000/svg", "")

    history = json.loads((ws.root / ".kapso/experiment_history.json").read_text())
    assert len(history) == 12  # the baseline and every candidate, once
    kapso_fields = {
        "node_id", "solution", "score", "feedback", "branch_name", "had_error", "error_message", "timestamp",
        "technical_difficulties", "solution_embedding", "metrics", "primary_metric",
        "external_evaluation_metadata", "external_evaluation_error", "evaluation_valid", "evaluation_provenance",
        "evaluation_integrity_error", "estimated_cost", "measured_cost", "cost_refusal",
    }  # fmt: skip
    assert all(set(item) == kapso_fields for item in history)
    entries = {item["branch_name"]: item for item in history}
    assert entries["candidate/pyc"]["evaluation_valid"] is False
    assert "IN005" in entries["candidate/pyc"]["evaluation_integrity_error"]
    assert entries["candidate/crash"]["had_error"] is True and entries["candidate/crash"]["score"] is None
    assert entries["candidate/better"]["score"] == 0.75


def test_text_output_and_report_file(
    workspace: Workspace, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    workspace.branch("candidate/better", {"solution/predict.py": predict("0.7")})
    workspace.branch("candidate/tamper", {"kapso_evaluation/evaluate.py": "print('score: 1.0')\n"})
    report = tmp_path / "out" / "report.html"
    code = main(["campaign", "--repo", str(workspace.root), "--report", str(report), "--parallel", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "candidate/better" in out and "Winner: candidate/better" in out
    assert "Rejected candidates:" in out and "IN001" in out and "kapso_evaluation/evaluate.py" in out
    assert "1 scored, 1 rejected, 0 failed" in out
    assert report.is_file() and "<svg" in report.read_text()


def test_explicit_refs_and_positional_refs(workspace: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    sha_b = workspace.branch("other/b", {"solution/predict.py": predict("0.4")})
    code, board = run_json(capsys, "--repo", str(workspace.root), "--candidates", "other/b", "candidate/a")
    assert code == 0
    assert [c["ref"] for c in board["candidates"]] == ["other/b", "candidate/a"]
    assert board["candidates"][0]["commit"] == sha_b
    assert board["winner"]["ref"] == "candidate/a" and board["delivered_branch"] is None


def test_no_scored_candidate_exits_1(workspace: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    workspace.branch("candidate/crash", {"solution/predict.py": "raise SystemExit(1)\n"})
    workspace.branch("candidate/tamper", {"kapso_evaluation/evaluate.py": "print('score: 9')\n"})
    code, board = run_json(capsys, "--repo", str(workspace.root))
    assert code == 1
    assert board["winner"] is None and board["failed_candidates"] == 1 and board["rejected_candidates"] == 1


def test_a_worse_candidate_is_scored_but_does_not_win(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace.branch("candidate/worse", {"solution/predict.py": predict("0.1")})
    code, board = run_json(capsys, "--repo", str(workspace.root))
    assert code == 0 and board["winner"] is None
    assert board["candidates"][0]["delta"] == pytest.approx(-0.4)


def test_minimize_direction_and_ties_go_to_the_earlier_candidate(
    make_workspace: Callable[..., Workspace], capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(config='direction = "minimize"\n' + CONFIG)
    ws.branch("candidate/a-low", {"solution/predict.py": predict("0.2")})
    ws.branch("candidate/b-low", {"solution/predict.py": predict("0.2")})
    ws.branch("candidate/c-high", {"solution/predict.py": predict("0.9")})
    code, board = run_json(capsys, "--repo", str(ws.root))
    assert code == 0 and board["metric"]["direction"] == "minimize"
    assert board["winner"]["ref"] == "candidate/a-low"


def test_stale_result_json_refuses_the_campaign(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    workspace.write("kapso_evaluation/result.json", '{"score": 1}')
    workspace.commit_all("oops, committed a result")
    code = main(["campaign", "--repo", str(workspace.root), "--campaign-id", "stale"])
    err = capsys.readouterr().err
    assert code == 2
    assert "IN006" in err and "kapso_evaluation/result.json" in err and "delete" in err
    assert "Traceback" not in err
    assert not (workspace.root / ".proctor/campaigns/stale").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--candidates", "does-not-exist"], "does-not-exist"),
        (["--candidates", "nomatch/*"], "match"),
        (["--baseline", "nope"], "nope"),
        (["--generator", "true"], "--iterations"),
        (["--iterations", "2"], "--generator"),
        (["--iteration-evaluator", "nonexistent_mod_q:f"], "cannot import"),
        (["--campaign-id", "../escape"], "campaign id"),
        (["--parallel", "-1"], "--parallel"),
        (["--resume"], "nothing to resume"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    workspace: Workspace, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    code = main(["campaign", "--repo", str(workspace.root), *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_not_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["campaign", "--repo", str(tmp_path)])
    assert code == 2 and "not a git repository" in capsys.readouterr().err


def test_an_existing_campaign_id_needs_resume(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    assert main(["campaign", "--repo", str(workspace.root), "--campaign-id", "x", "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["campaign", "--repo", str(workspace.root), "--campaign-id", "x"]) == 2
    assert "--resume" in capsys.readouterr().err


def test_an_invalid_baseline_config_names_the_ref_and_file(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    workspace.write("proctor.toml", "nope = 1\n" + CONFIG)
    workspace.commit_all("bad config")
    assert main(["campaign", "--repo", str(workspace.root)]) == 2
    err = capsys.readouterr().err
    assert "HEAD:proctor.toml:1: `nope`: unknown key" in err and "Traceback" not in err
