"""Atomic writes: complete files only, and the mode a user expects."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from core.atomic import atomic_write_json, atomic_write_text


def test_new_file_gets_umask_mode_and_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    atomic_write_text(target, "<p>one</p>")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    target.chmod(0o640)
    atomic_write_text(target, "<p>two</p>")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.read_text() == "<p>two</p>"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_json_is_sorted_and_refuses_nan_without_touching_the_file(tmp_path: Path) -> None:
    target = tmp_path / "registry.json"
    atomic_write_json(target, {"b": 1, "a": [1, 2]})
    assert list(json.loads(target.read_text())) == ["a", "b"]
    with pytest.raises(ValueError):
        atomic_write_json(target, {"score": float("nan")})
    assert json.loads(target.read_text()) == {"a": [1, 2], "b": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["registry.json"]
