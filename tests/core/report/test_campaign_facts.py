"""Git facts for the report: messages and diff stats against the baseline, read through core's hardened git."""

from __future__ import annotations

from pathlib import Path

from core.campaign.report.facts import commit_facts
from core.campaign.report.model import ChangedFile
from tests.core.campaign.conftest import build_workspace, git


def test_messages_and_files_changed_against_the_baseline(tmp_path: Path) -> None:
    ws = build_workspace(tmp_path / "repo")
    base = git(ws.root, "rev-parse", "main").strip()
    two = ws.branch(
        "candidate/two", {"solution/predict.py": "print('0.7')\nprint('x')\n", "notes/a b.bin": b"\0\1\2"}
    )
    same = ws.branch("candidate/same", {})
    facts = commit_facts(ws.root, base, [base, two, same, "not-a-sha"])
    assert set(facts) == {base, two, same}
    assert facts[base].message == "baseline" and facts[base].files == ()
    assert facts[two].message == "candidate candidate/two"
    assert sorted(facts[two].files, key=lambda f: f.path) == [
        ChangedFile("notes/a b.bin", None, None),
        ChangedFile("solution/predict.py", 2, 1),
    ]
    assert facts[same].files == () and facts[same].error == ""


def test_a_missing_commit_costs_its_details_not_the_report(tmp_path: Path) -> None:
    ws = build_workspace(tmp_path / "repo")
    base = git(ws.root, "rev-parse", "main").strip()
    two = ws.branch("candidate/two", {"solution/predict.py": "print('0.7')\n"})
    facts = commit_facts(ws.root, base, ["f" * 40, two])
    assert facts["f" * 40].error == "the commit is no longer in the repository"
    assert facts[two].message == "candidate candidate/two" and len(facts[two].files) == 1
    assert commit_facts(tmp_path / "nowhere", base, [base])[base].error
