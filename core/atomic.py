"""Crash-safe file writes: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write `data` to `path` via temp file + fsync + os.replace, then fsync the directory.

    The file keeps its mode when it exists, else gets the usual 0666 & ~umask (mkstemp's 0600 would hide
    reports and registries from the rest of the team).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_UMASK
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    dir_fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def atomic_write_text(path: Path | str, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path | str, obj: Any, *, indent: int | None = 2) -> None:
    """JSON with sorted keys and no NaN/inf (Kapso-compatible registry/history files)."""
    atomic_write_text(path, json.dumps(obj, indent=indent, sort_keys=True, allow_nan=False) + "\n")
