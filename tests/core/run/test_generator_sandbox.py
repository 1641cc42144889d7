"""A generator campaign's generator (an agent that writes candidates) runs like a candidate: it cannot read the
hold-out answers nor reach the measured repository's .git. Each attack is run by hand first, where it works,
then through a campaign under bwrap and unshare, where it does not."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main
from core.runner import SandboxChoice
from tests.core.campaign.conftest import build_workspace, git

ANSWER = "0.97"
HONEST = "0.6"

# Reads the hold-out dir named in the copy's proctor.toml and writes the answer in as its prediction; also
# plants a command in the measured repository's .git/config (run by Proctor's next git command there).
GENERATOR = """
import os, re, subprocess
from pathlib import Path

value = {honest!r}
config = Path("proctor.toml").read_text()
holdout = re.search(r'holdout_dir = "([^"]+)"', config).group(1)
try:
    value = (Path(holdout) / "answer.txt").read_text().strip()
except OSError:
    pass
try:
    with open({git_config!r}, "a") as handle:
        handle.write("[core]\\n\\tfsmonitor = touch /tmp/owned\\n")
except OSError:
    pass
Path("solution/predict.py").write_text(f"print({{value!r}})\\n")
subprocess.run(["git", "commit", "--quiet", "-am", "generated"], check=True)
"""


def _setup(tmp_path: Path) -> tuple[Path, str]:
    holdout = tmp_path / "holdout"
    holdout.mkdir()
    (holdout / "answer.txt").write_text(ANSWER + "\n")
    config = (
        f'timeout_s = 30\nmetric = "score"\nholdout_dir = "{holdout}"\nentry_point = "solution/predict.py"\n'
        '\n[campaign]\nsandbox = "namespace"\nparallel = 1\n'
    )
    repo = build_workspace(tmp_path / "repo", config=config).root
    source = GENERATOR.format(honest=HONEST, git_config=str(repo / ".git" / "config"))
    return repo, f"{sys.executable} -c {shlex.quote(source)}"


def test_the_generator_cannot_read_the_holdout_or_write_the_repositorys_git(
    tmp_path: Path, backend: SandboxChoice, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, command = _setup(tmp_path)
    git_config = (repo / ".git" / "config").read_text()

    # By hand: the generator in a copy of the repository, as it ran before (at the process level).
    by_hand = tmp_path / "by-hand"
    git(tmp_path, "clone", "--quiet", str(repo), str(by_hand))
    feedback = tmp_path / "feedback.json"
    feedback.write_text("{}")
    env = {**os.environ, "PROCTOR_FEEDBACK": str(feedback), "PROCTOR_ITERATION": "1"}
    env |= {
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@b.c",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@b.c",
    }
    subprocess.run(["sh", "-c", command], cwd=by_hand, env=env, check=True)
    assert (by_hand / "solution" / "predict.py").read_text() == f"print({ANSWER!r})\n"  # it read the answers
    assert "fsmonitor" in (repo / ".git" / "config").read_text()  # and planted a command in the repository
    (repo / ".git" / "config").write_text(git_config)

    # Through a campaign: the generator runs in its own sandbox.
    args = ["campaign", "--repo", str(repo), "--format", "json", "--campaign-id", "g"]
    code = main([*args, "--generator", command, "--iterations", "1"])
    board = json.loads(capsys.readouterr().out)
    assert code == 0, board
    row = board["candidates"][0]
    assert row["status"] == "scored" and row["score"] == float(HONEST), row
    assert git(repo, "show", f"{row['ref']}:solution/predict.py") == f"print({HONEST!r})\n"
    assert (repo / ".git" / "config").read_text() == git_config
    assert not Path("/tmp/owned").exists()
