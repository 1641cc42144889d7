"""One candidate never ends a campaign (SPEC §4.3): trees deeper than Python's recursion limit, committed or
made during the run, inside the suite or outside, are measured like any other; a suite left impossible to
re-hash is IN009; the honest winner still wins, and `--resume` after them works.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from core.treewalk import remove_tree, walk
from tests.core.campaign.conftest import Workspace, build_workspace, git, predict

DEPTH = 1_100  # deeper than sys.getrecursionlimit() (1000): os.walk, rglob and rmtree of Python 3.11 fail

# Made during the run: descend by relative chdir, so the tree can be deeper than PATH_MAX as well.
DIG = """\
import os
home = os.getcwd()
os.chdir({where!r})
for _ in range({levels}):
    os.mkdir("dd")
    os.chdir("dd")
open("leaf.txt", "w").close()
os.chdir(home)
"""


def _deep_branch(ws: Workspace, name: str, top: str, value: str) -> None:
    """A candidate committing `DEPTH` nested directories under `top` (made level by level, no recursion)."""
    git(ws.root, "checkout", "--quiet", "-b", name, "main")
    current = ws.root / top
    current.mkdir(exist_ok=True)
    for _ in range(DEPTH):
        current = current / "d"
        current.mkdir()
    (current / "notes.txt").write_text("just text\n")
    ws.write("solution/predict.py", predict(value))
    ws.commit_all(f"candidate {name}")
    git(ws.root, "checkout", "--quiet", "main")


def _dig(where: str, levels: int, value: str) -> str:
    return DIG.format(where=where, levels=levels) + predict(value)


def _campaign(capsys: pytest.CaptureFixture[str], ws: Workspace, *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["campaign", "--format", "json", "--repo", str(ws.root), "--campaign-id", "deep", *extra])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "RecursionError" not in captured.err, captured.err
    return code, json.loads(captured.out)


def test_deep_trees_never_end_the_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = build_workspace(tmp_path / "repo")
    _deep_branch(ws, "candidate/deep-suite", "kapso_evaluation", "0.6")
    _deep_branch(ws, "candidate/deep-outside", "junk", "0.7")
    ws.branch("candidate/dig-outside", {"solution/predict.py": _dig(".", 2_200, "0.65")})
    ws.branch("candidate/dig-suite", {"solution/predict.py": _dig("kapso_evaluation", DEPTH, "0.66")})
    ws.branch("candidate/unhashable-suite", {"solution/predict.py": _dig("kapso_evaluation", 2_200, "0.99")})
    ws.branch("candidate/honest", {"solution/predict.py": predict("0.9")})
    assert sys.getrecursionlimit() < DEPTH
    code, board = _campaign(capsys, ws)
    assert code == 0
    by_ref = {c["ref"]: c for c in board["candidates"]}
    for ref, score in (
        ("deep-suite", 0.6),
        ("deep-outside", 0.7),
        ("dig-outside", 0.65),
        ("dig-suite", 0.66),
    ):
        assert by_ref[f"candidate/{ref}"]["status"] == "scored", by_ref[f"candidate/{ref}"]
        assert by_ref[f"candidate/{ref}"]["score"] == score
    unhashable = by_ref["candidate/unhashable-suite"]
    assert unhashable["status"] == "rejected"
    assert [f["code"] for f in unhashable["findings"]] == ["IN009"]
    assert "could not be re-hashed" in unhashable["findings"][0]["detail"]
    assert board["winner"]["ref"] == "candidate/honest" and board["winner"]["score"] == 0.9
    leftovers = glob.glob(os.path.join(tempfile.gettempdir(), "proctor-campaign-deep-*"))
    assert leftovers == []
    # Resume after those candidates: nothing is measured again, the same scoreboard comes back.
    code, resumed = _campaign(capsys, ws, "--resume")
    assert code == 0
    assert resumed["candidates"] == board["candidates"] and resumed["winner"] == board["winner"]


def test_walk_and_remove_tree_have_no_depth_limit(tmp_path: Path) -> None:
    top = tmp_path / "top"
    top.mkdir()
    deep = top
    for _ in range(DEPTH):
        deep = deep / "d"
        deep.mkdir()
    (deep / "leaf").write_bytes(b"x")
    (top / "ro").mkdir()
    (top / "ro" / "kept-by-mode").write_bytes(b"x")
    (top / "ro").chmod(0o500)
    os.symlink(tmp_path / "outside", top / "link")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "precious").write_bytes(b"x")
    (top / os.fsdecode(b"odd\xff\xfename")).write_bytes(b"x")
    if sys.version_info < (3, 12):  # 3.12 made os.walk iterative; rmtree and rglob still recurse
        with pytest.raises(RecursionError):
            list(os.walk(top))  # what Proctor used before: proof that the tree breaks the standard walk
    steps = list(walk(top))
    assert len(steps) == DEPTH + 2 and steps[0][0] == str(top)
    assert "link" in steps[0][1] and not any(step[0].endswith("link") for step in steps)
    remove_tree(top)
    assert not top.exists()
    assert (tmp_path / "outside" / "precious").exists()
