"""SPEC §4.1: Proctor's manifest and evaluator_id equal Kapso 0.7.10's on several trees, byte for byte."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from types import ModuleType

import pytest

from core.errors import IntegrityError, WorkspaceError
from core.integrity.manifest import build_manifest, hash_files, manifest_fingerprint, snapshot
from tests.core.integrity.helpers import write


def _nested(root: Path) -> None:
    write(
        root,
        {
            "evaluate.py": "print('auc: 0.5')\n",
            "metrics.py": "def auc(y, p):\n    return 0.5\n",
            "lib/deep/er/mod.py": "X = 1\n",
            "lib/deep/er/data.json": '{"a": 1}',
            "lib/__init__.py": "",
            "README.md": "# suite\n",
            "z_last.txt": "z",
            "A_upper.txt": "A",
        },
    )


def _non_ascii(root: Path) -> None:
    write(
        root,
        {
            "évaluer.py": "print('score: 1')\n",
            "データ/ラベル.csv": "y\n1\n",
            "naïve/café.txt": "crème",
            "emoji_🙂.txt": "ok",
            "Ünïcödé/ß.py": "x = 'ß'\n",
        },
    )


def _empty_and_junk(root: Path) -> None:
    write(
        root,
        {
            "evaluate.py": "",
            "empty.txt": "",
            "__pycache__/evaluate.cpython-311.pyc": b"\x00junk",
            "sub/__pycache__/x.cpython-311.pyc": b"\x00junk",
            "sub/__pycache__/notes.txt": "skipped too: any __pycache__ component",
            "stray.PYC": b"upper-case .pyc is junk as well",
            ".pyc": "a dotfile named .pyc has no suffix, so it is hashed",
            "trailing.pyc ": "a trailing space makes the suffix '.pyc ', hashed",
            ".hidden/config.toml": "a = 1\n",
        },
    )
    os.chmod(root / "evaluate.py", 0o755)


def _large(root: Path) -> None:
    rng = random.Random(7)
    write(root, {"evaluate.py": "print('auc: 1')\n", "weights.bin": rng.randbytes(20 * 1024 * 1024 + 13)})
    for index in range(200):
        write(root, {f"shards/s{index:03d}.bin": rng.randbytes(rng.randrange(0, 5000))})


TREES = {"nested": _nested, "non-ascii": _non_ascii, "empty-and-junk": _empty_and_junk, "large": _large}


@pytest.mark.parametrize("name", sorted(TREES))
def test_manifest_and_evaluator_id_equal_kapso(name: str, tmp_path: Path, kapso: ModuleType) -> None:
    suite = tmp_path / "kapso_evaluation"
    suite.mkdir()
    TREES[name](suite)
    ours = build_manifest(suite)
    theirs = kapso.build_evaluation_manifest(suite)
    assert ours == theirs
    assert list(ours) == list(theirs)  # same order, so even an unsorted json.dumps agrees
    assert manifest_fingerprint(ours) == kapso.manifest_fingerprint(theirs)
    snap = snapshot(suite)
    assert snap.manifest == theirs
    assert snap.evaluator_id == kapso.manifest_fingerprint(theirs)
    assert kapso.verify_evaluation_tree(suite, ours).valid


def test_modes_record_type_and_exec_bit_without_changing_the_id(tmp_path: Path, kapso: ModuleType) -> None:
    suite = tmp_path / "suite"
    _empty_and_junk(suite)
    before = snapshot(suite)
    os.chmod(suite / "empty.txt", 0o755)
    after = snapshot(suite)
    assert (
        after.evaluator_id
        == before.evaluator_id
        == kapso.manifest_fingerprint(kapso.build_evaluation_manifest(suite))
    )
    assert before.modes["empty.txt"] == {"type": "file", "executable": False}
    assert after.modes["empty.txt"] == {"type": "file", "executable": True}
    assert after.modes["evaluate.py"]["executable"] is True
    assert after.modes["sub"] == {"type": "dir", "executable": False}
    # __pycache__ entries are tracked for IN005 even though the manifest skips them
    assert "__pycache__/evaluate.cpython-311.pyc" in after.modes
    assert "__pycache__/evaluate.cpython-311.pyc" in after.junk
    assert "__pycache__/evaluate.cpython-311.pyc" not in after.manifest


def test_symlinks_and_empty_suites_are_refused_like_kapso(tmp_path: Path, kapso: ModuleType) -> None:
    suite = tmp_path / "suite"
    write(suite, {"evaluate.py": "x"})
    (suite / "link.py").symlink_to("evaluate.py")
    with pytest.raises(IntegrityError, match=r"symlink: link\.py"):
        build_manifest(suite)
    with pytest.raises(kapso.EvaluationIntegrityError):
        kapso.build_evaluation_manifest(suite)
    snap = snapshot(suite)  # the lenient form describes it instead
    assert snap.modes["link.py"] == {"type": "symlink", "executable": False}
    assert "link.py" not in snap.manifest
    empty = tmp_path / "empty"
    (empty / "only_dirs").mkdir(parents=True)
    with pytest.raises(IntegrityError, match="no files"):
        build_manifest(empty)
    with pytest.raises(WorkspaceError, match="does not exist"):
        build_manifest(tmp_path / "missing")
    (tmp_path / "alias").symlink_to(suite)
    with pytest.raises(IntegrityError, match="cannot be a symlink"):
        build_manifest(tmp_path / "alias")


def test_fingerprint_is_the_sha256_of_compact_sorted_json() -> None:
    import hashlib

    manifest = {"b.py": "2" * 64, "a/ü.py": "1" * 64}
    expected = hashlib.sha256(
        json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    assert manifest_fingerprint(manifest) == expected


def test_threaded_hasher_equals_sequential(tmp_path: Path) -> None:
    import hashlib

    rng = random.Random(1)
    paths = []
    for index in range(40):
        path = tmp_path / f"f{index}"
        path.write_bytes(rng.randbytes(rng.randrange(0, 3 << 20)))
        paths.append(path)
    expected = [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]
    assert hash_files(paths, threads=2, total_bytes=1 << 30) == expected
    assert hash_files(paths, threads=1) == expected
