"""Git for the campaign benchmarks (shared by campaign_overhead and distributed_scaling): an environment
without the user's or the system's git config, and the baseline + candidate branches both measure."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` with GIT_ENV; its stdout."""
    return subprocess.run(
        ["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout


def commit_value_candidates(root: Path, candidates: int) -> None:
    """Commit what `root` holds as the baseline on `main`, then one branch `candidate/cNNN` per candidate,
    each changing solution/value.txt to its own score (0.001, 0.002, ...); `main` is checked out again."""
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", "baseline")
    for i in range(candidates):
        git(root, "checkout", "--quiet", "-b", f"candidate/c{i:03d}", "main")
        (root / "solution" / "value.txt").write_text(f"0.{i + 1:03d}\n")
        git(root, "commit", "--quiet", "-am", f"candidate {i}")
    git(root, "checkout", "--quiet", "main")
