"""A tiny campaign workspace as a git repository, with candidate branches for every outcome.

The evaluator (the baseline's, trusted) runs the candidate's `solution/predict.py` in a subprocess, passes its
earlier output lines through and prints `score: <last line>`; it writes result.json with paired per-item
scores. Each candidate branch changes one thing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

EVALUATE = '''\
"""Trusted test evaluator: runs the candidate, prints `score: <value>` last, writes result.json."""
import argparse
import json
import subprocess
import sys
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--fast", action="store_true")
args = parser.parse_args()
proc = subprocess.run([sys.executable, "solution/predict.py"], stdout=subprocess.PIPE)
if proc.returncode != 0:
    print(f"the candidate exited {proc.returncode}", file=sys.stderr)
    sys.exit(1)
lines = proc.stdout.splitlines()
if not lines:
    print("the candidate printed nothing", file=sys.stderr)
    sys.exit(1)
for line in lines[:-1]:
    sys.stdout.buffer.write(line + b"\\n")
sys.stdout.buffer.flush()
text = lines[-1].decode("utf-8", "replace").strip()
value = float(text)
items = [value + 0.01 * ((i * 7) % 5 - 2) for i in range(20)]
Path("kapso_evaluation/result.json").write_text(json.dumps({
    "evaluation_script_path": "kapso_evaluation/evaluate.py",
    "evaluation_output": text,
    "score": value,
    "per_item_scores": items,
}))
print(f"score: {text}")
'''

BRIEF = """# Goal
Raise the score above 0.9.

Measured by score on kapso_datasets/data.csv with an 80/20 split, seed 42; higher is better,
printed as `score: <value>`.
"""

CONFIG = """\
timeout_s = 5
metric = "score"

[campaign]
sandbox = "process"
parallel = 2
"""


def predict(value: str, *, before: str = "") -> str:
    return f"{before}print({value!r})\n"


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    }
    done = subprocess.run(["git", *args], cwd=repo, env=env, input=input, capture_output=True, check=True)
    return done.stdout.decode()


class Workspace:
    """A git repo with a baseline on `main` and helpers to add candidate branches."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, rel: str, content: str | bytes, *, mode: int | None = None) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        if mode is not None:
            path.chmod(mode)

    def commit_all(self, message: str) -> str:
        git(self.root, "add", "--all", "--force")
        git(self.root, "commit", "--quiet", "--allow-empty", "-m", message)
        return git(self.root, "rev-parse", "HEAD").strip()

    def branch(self, name: str, files: dict[str, str | bytes], *, delete: tuple[str, ...] = ()) -> str:
        """Create branch `name` from main with `files` written (and `delete` removed); back on main after."""
        git(self.root, "checkout", "--quiet", "-b", name, "main")
        for rel, content in files.items():
            self.write(rel, content)
        for rel in delete:
            (self.root / rel).unlink()
        sha = self.commit_all(f"candidate {name}")
        git(self.root, "checkout", "--quiet", "main")
        return sha


def build_workspace(root: Path, *, baseline_value: str = "0.5", config: str = CONFIG) -> Workspace:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    ws = Workspace(root)
    ws.write("kapso_evaluation/evaluate.py", EVALUATE)
    ws.write("kapso_datasets/data.csv", "x,y\n1,0\n2,1\n")
    ws.write("solution/predict.py", predict(baseline_value))
    ws.write("brief.md", BRIEF)
    ws.write("proctor.toml", config)
    ws.write(".gitignore", ".proctor/\n")
    ws.commit_all("baseline")
    return ws


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return build_workspace(tmp_path / "repo")


@pytest.fixture
def make_workspace(tmp_path: Path) -> Callable[..., Workspace]:
    counter = iter(range(1000))

    def make(**kwargs: str) -> Workspace:
        return build_workspace(tmp_path / f"repo{next(counter)}", **kwargs)

    return make


def scoreboard(repo: Path, campaign_id: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(
        (repo / ".proctor" / "campaigns" / campaign_id / "scoreboard.json").read_text(encoding="utf-8")
    )
    return data


def comparable(board: dict[str, object]) -> dict[str, object]:
    """The scoreboard minus what legitimately differs between runs (durations and the campaign id)."""
    copy = json.loads(json.dumps(board))
    copy.pop("campaign_id", None)
    for candidate in copy["candidates"]:
        candidate.pop("duration_s", None)
    if copy.get("delivered_branch"):
        copy["delivered_branch"] = "<delivered>"
    return dict(copy)


@pytest.fixture(autouse=True)
def _require_git() -> None:
    if shutil.which("git") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("git is required in CI")
        pytest.skip("git is not installed")
