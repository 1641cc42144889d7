"""A candidate that branched before the baseline changed its evaluator (or data) is measured under the current
ones, not rejected; a real edit, and histories crafted to fool a merge-base rule, are still rejected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from tests.core.campaign.conftest import EVALUATE, Workspace, build_workspace, git, predict

# The evaluator after the baseline branch changed it: halves the value and counts the data rows.
EVALUATE_V2 = EVALUATE.replace(
    "value = float(text)\n",
    'value = float(text) / 2 + len(Path("kapso_datasets/data.csv").read_text().splitlines()) / 1000\n',
).replace('print(f"score: {text}")', 'print(f"score: {value}")')
assert EVALUATE_V2.count("/ 1000") == 1 and "score: {value}" in EVALUATE_V2
NEW_DATA = "x,y\n1,0\n2,1\n3,0\n4,1\n"  # 5 lines (the original has 3)


def history(root: Path) -> tuple[Workspace, str]:
    """main: baseline0 → (candidates branch here) → evaluator v2 + new data. Returns the workspace and
    baseline0's sha."""
    ws = build_workspace(root)
    base0 = git(root, "rev-parse", "HEAD").strip()
    ws.branch("candidate/old", {"solution/predict.py": predict("0.8")})
    ws.branch("candidate/tamper", {"kapso_evaluation/evaluate.py": EVALUATE + "# edited\n"})
    ws.write("kapso_evaluation/evaluate.py", EVALUATE_V2)
    ws.write("kapso_datasets/data.csv", NEW_DATA)
    ws.commit_all("evaluator v2 and more data")
    return ws, base0


def run(capsys: pytest.CaptureFixture[str], repo: Path, cid: str) -> dict[str, Any]:
    code = main(["campaign", "--repo", str(repo), "--campaign-id", cid, "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    board: dict[str, Any] = json.loads(out)
    return board


def rows(board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["ref"]: c for c in board["candidates"]}


def test_an_older_candidate_is_measured_under_the_current_evaluator_and_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, base0 = history(tmp_path / "repo")
    board = run(capsys, ws.root, "m1")
    found = rows(board)
    old = found["candidate/old"]
    assert old["status"] == "scored" and old["findings"] == []
    assert old["score"] == pytest.approx(0.8 / 2 + 5 / 1000)  # v2 and the new data, not v1 or the old data
    assert board["baseline"]["score"] == pytest.approx(0.5 / 2 + 5 / 1000)
    assert found["candidate/tamper"]["status"] == "rejected"
    assert {f["code"] for f in found["candidate/tamper"]["findings"]} == {"IN001"}
    state = json.loads((ws.root / ".proctor/campaigns/m1/state.json").read_text())
    record = next(r for r in state["records"] if r["ref"] == "candidate/old")
    assert record["based_on"] == (
        f"based on an older evaluator (commit {base0[:10]}); measured under the current one"
    )
    assert main(["campaign", "--repo", str(ws.root), "--resume", "--campaign-id", "m1"]) == 0
    assert "based on an older" in capsys.readouterr().out  # the text scoreboard's note (folded)


def test_histories_crafted_to_fool_the_merge_base_rule_are_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, base0 = history(tmp_path / "repo")
    root = ws.root
    # A candidate whose parents include the tampered commit.
    git(root, "checkout", "--quiet", "-b", "candidate/merged", "candidate/old")
    git(root, "merge", "--quiet", "--no-edit", "candidate/tamper")
    # A root commit with a copy of the old suite (no merge base), plus a graft and a replace ref that
    # would give it baseline0 as its parent.
    git(root, "checkout", "--quiet", "--orphan", "candidate/rootcopy", base0)
    ws.write("solution/predict.py", predict("0.9"))
    orphan = ws.commit_all("root commit with a copied suite")
    git(root, "checkout", "--quiet", "main")
    (root / ".git/info").mkdir(exist_ok=True)
    (root / ".git/info/grafts").write_text(f"{orphan} {base0}\n")
    fake = git(root, "commit-tree", f"{orphan}^{{tree}}", "-p", base0, "-m", "pretend").strip()
    git(root, "replace", orphan, fake)
    board = run(capsys, root, "m2")
    found = rows(board)
    assert found["candidate/merged"]["status"] == "rejected"
    assert found["candidate/rootcopy"]["status"] == "rejected"
    assert "IN001" in {f["code"] for f in found["candidate/rootcopy"]["findings"]}
    assert found["candidate/old"]["status"] == "scored"
