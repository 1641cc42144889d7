"""The suite's files before and after the runs, and which new files count as source (IN005).

`no-stray-writes` compares two of these snapshots with the same `suite_diff` IN009 uses after a campaign.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from core.integrity.classify import SOURCE_SUFFIXES, source_suffix
from core.treewalk import walk

__all__ = ["is_source_file", "suite_hashes"]


def suite_hashes(suite: Path) -> dict[str, str]:
    """{posix relative path: sha256} of every file under the suite; a symlink hashes as its target text.

    Unlike the Kapso-compatible manifest (core.integrity.manifest), `__pycache__` files are included:
    verify must see a bytecode file appear (IN005).
    """
    hashes: dict[str, str] = {}
    for current, dirs, files in walk(suite):  # iterative, any depth
        dirs.sort()
        base = Path(current)
        for name in sorted(files) + [d for d in dirs if (base / d).is_symlink()]:
            path = base / name
            rel = path.relative_to(suite).as_posix()
            if path.is_symlink():
                hashes[rel] = "symlink:" + os.readlink(path)
            else:
                hashes[rel] = _sha256(path)
    return hashes


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    return digest.hexdigest()


def is_source_file(path: Path) -> bool:
    """IN005: a source suffix (case-insensitive, trailing dots/spaces ignored), executable, or starts with #!."""
    if source_suffix(path.name) in SOURCE_SUFFIXES or path.parent.name == "__pycache__":
        return True
    if path.is_symlink():
        return True
    try:
        if path.stat().st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH):
            return True
        with path.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return True
