"""A campaign says whose proctor.toml it measures with, and warns when the working tree's differs."""

from __future__ import annotations

import pytest

from core.cli import main
from tests.core.campaign.conftest import CONFIG, Workspace, git, predict


def run(ws: Workspace, capsys: pytest.CaptureFixture[str], cid: str) -> tuple[int, list[str]]:
    code = main(["campaign", "--repo", str(ws.root), "--campaign-id", cid, "--format", "json"])
    return code, capsys.readouterr().err.splitlines()


def test_first_line_names_the_baseline_commits_config(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace
    ws.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    head = git(ws.root, "rev-parse", "HEAD").strip()
    code, lines = run(ws, capsys, "s1")
    assert code == 0
    assert lines[0].startswith(
        f"proctor: campaign s1: config proctor.toml from the baseline commit HEAD ({head[:10]}); python "
    ) and lines[0].endswith("; 1 candidate(s)")
    assert not any("warning" in line for line in lines)


def test_an_uncommitted_config_change_is_named_and_not_used(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace
    ws.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    ws.write(
        "proctor.toml", 'command = "python other.py"\n' + CONFIG.replace("timeout_s = 5", "timeout_s = 50")
    )
    code, lines = run(ws, capsys, "s2")
    assert code == 0  # measured with the committed command, not the working tree's
    assert lines[0].startswith("proctor: campaign s2: config proctor.toml from the baseline commit HEAD")
    assert lines[1] == (
        "proctor: warning: the working tree's config differs from proctor.toml of HEAD "
        f"({git(ws.root, 'rev-parse', 'HEAD').strip()[:10]}) (command, timeout_s); this campaign uses the "
        "committed one: commit your change to measure with it"
    )


def test_a_working_tree_config_that_does_not_parse_is_a_warning_not_an_error(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace
    ws.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    ws.write("proctor.toml", "timeout_s = [\n")
    code, lines = run(ws, capsys, "s3")
    assert code == 0
    assert lines[1].startswith("proctor: warning: the working tree's proctor.toml does not parse (line ")
    assert lines[1].endswith(
        "this campaign uses the committed one of HEAD ("
        + git(ws.root, "rev-parse", "HEAD").strip()[:10]
        + ")"
    )


def test_no_config_file_at_the_baseline_says_defaults(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace
    git(ws.root, "rm", "--quiet", "proctor.toml")
    ws.commit_all("no config")
    ws.branch("candidate/a", {"solution/predict.py": predict("0.6")})
    code, lines = run(ws, capsys, "s4")
    assert code == 0
    assert "default config (no proctor.toml or [tool.proctor] in the baseline commit HEAD" in lines[0]
    assert not any("warning" in line for line in lines)
