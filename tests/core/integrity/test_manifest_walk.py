"""The stat-free walk behind `build_manifest` decides junk, symlinks and special files exactly as Kapso 0.7.10.

Kapso checks junk first (any `__pycache__` component, a last-component `.pyc` suffix), then refuses symlinks,
then hashes regular files; the edge cases below are where a faster walk could drift from that order.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

import pytest

from core.errors import IntegrityError
from core.integrity.classify import is_junk
from core.integrity.manifest import _is_junk_name, build_manifest, snapshot
from tests.core.integrity.helpers import write

NAMES = [
    "a.pyc",
    "A.PYC",
    "a.Pyc",
    ".pyc",
    "..pyc",
    "a.pyc.",
    "a.pyc ",
    "pyc",
    "a.py",
    "a.tar.pyc",
    "x.",
    ".",
    "a..pyc",
    "é.pyc",
    "a.pyć",
]


@pytest.mark.parametrize("name", NAMES)
def test_junk_name_equals_is_junk(name: str) -> None:
    """`__pycache__` itself is left out: the walk never enters (or hashes) anything by that name."""
    assert _is_junk_name(name) == is_junk(f"dir/{name}")


def _tricky(root: Path) -> None:
    write(
        root,
        {
            "evaluate.py": "print('auc: 1')\n",
            "dir.pyc/inside.txt": "a directory named *.pyc is not junk below it",
            "deep/__pycache__/nested/x.txt": "junk at any depth",
            "Stray.PyC": b"\x00",
            ".pyc": "hashed: no suffix",
            "sub/.git/config": "a nested .git is hashed like anything else",
        },
    )
    (root / "__pycache__").write_text("a file named __pycache__ is junk")
    os.makedirs(root / "deep" / "__pycache__" / "links")
    (root / "deep" / "__pycache__" / "links" / "l").symlink_to("../../x")
    (root / "linked.pyc").symlink_to("evaluate.py")
    os.mkfifo(root / "fifo")


def test_tricky_tree_matches_kapso(tmp_path: Path, kapso: ModuleType) -> None:
    suite = tmp_path / "suite"
    _tricky(suite)
    ours = build_manifest(suite)
    theirs = kapso.build_evaluation_manifest(suite)
    assert ours == theirs and list(ours) == list(theirs)
    assert snapshot(suite).manifest == ours


def test_the_first_symlink_in_kapsos_order_is_named(tmp_path: Path, kapso: ModuleType) -> None:
    suite = tmp_path / "suite"
    write(suite, {"evaluate.py": "x", "b/c.txt": "c"})
    (suite / "b" / "z-link").symlink_to("c.txt")
    (suite / "b-link").symlink_to("b")
    (suite / "a" / "deeper").mkdir(parents=True)
    (suite / "a" / "deeper" / "link").symlink_to("../../evaluate.py")
    with pytest.raises(kapso.EvaluationIntegrityError, match="a/deeper/link"):
        kapso.build_evaluation_manifest(suite)
    with pytest.raises(IntegrityError, match="symlink: a/deeper/link "):
        build_manifest(suite)
