"""The generator candidate source: fresh copies, one commit each, feedback limited to internal results."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from core.cli import main
from tests.core.campaign.conftest import Workspace, git

GENERATOR = """\
import json, os, subprocess, sys
feedback = json.load(open(os.environ["PROCTOR_FEEDBACK"]))
iteration = int(os.environ["PROCTOR_ITERATION"])
with open({log!r}, "a") as log:
    log.write(json.dumps({{"iteration": iteration, "feedback": feedback, "env": sorted(os.environ)}}) + "\\n")
if iteration == 3:
    sys.exit(0)  # this run makes no commit
if iteration == 5:
    sys.exit(4)  # this run fails
with open("solution/predict.py", "w") as handle:
    handle.write(f"print({{0.5 + 0.1 * iteration:.1f}})\\n")
subprocess.run(["git", "commit", "--quiet", "-am", f"generated {{iteration}}"], check=True)
"""


def test_generator_campaign(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    log = tmp_path / "generator.jsonl"
    script = tmp_path / "generate.py"
    script.write_text(GENERATOR.format(log=str(log)))
    command = f"{sys.executable} {script}"
    args = ["campaign", "--repo", str(workspace.root), "--format", "json", "--campaign-id", "gen"]
    extra = ["--iteration-evaluator", "tests.core.campaign.helpers:observe"]
    code = main([*args, "--generator", command, "--iterations", "5", *extra])
    board = json.loads(capsys.readouterr().out)
    assert code == 0
    rows = board["candidates"]
    assert [c["ref"] for c in rows] == [f"refs/proctor/generated/gen/{n}" for n in range(1, 6)]
    assert [c["status"] for c in rows] == ["scored", "scored", "failed", "scored", "failed"]
    assert [c["score"] for c in rows] == [0.6, 0.7, None, 0.9, None]
    assert rows[2]["commit"] is None and rows[4]["commit"] is None
    assert board["winner"]["ref"] == "refs/proctor/generated/gen/4"
    for n in (1, 2, 4):
        assert (
            git(workspace.root, "rev-parse", f"refs/proctor/generated/gen/{n}").strip()
            == rows[n - 1]["commit"]
        )
    state = json.loads((workspace.root / ".proctor/campaigns/gen/state.json").read_text())
    reasons = [r["reason"] for r in state["records"]]
    assert "made no commit" in reasons[2] and "the generator failed: exit 4" in reasons[4]

    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["iteration"] for r in runs] == [1, 2, 3, 4, 5]
    for run in runs:
        assert "OPENAI_API_KEY" not in run["env"] and "GITHUB_TOKEN" not in run["env"]
    second = runs[1]["feedback"]
    assert set(second) == {"metric", "baseline", "candidates"}
    assert second["baseline"] == {"score": 0.5}
    assert second["candidates"] == [
        {"iteration": 1, "commit": rows[0]["commit"], "status": "scored", "score": 0.6, "findings": []}
    ]
    assert "external" not in json.dumps(runs[-1]["feedback"]) and "predict_bytes" not in json.dumps(runs[-1])

    # The candidate source is part of the fingerprint.
    assert main([*args, "--resume", "--generator", "true", "--iterations", "5", *extra]) == 2
    assert "the candidate source" in capsys.readouterr().err
    # An unchanged resume runs nothing: the generator is not called again.
    assert main([*args, "--resume", *extra]) == 0
    capsys.readouterr()
    assert len(log.read_text().splitlines()) == 5
