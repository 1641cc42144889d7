"""The read-only bytecode of the evaluator's interpreter, for runs whose PYTHONPYCACHEPREFIX is fresh.

PYTHONPYCACHEPREFIX points at a fresh per-run directory so a bytecode file planted in the workspace's
`__pycache__/` is never read (IN005). To keep runs fast that directory exposes a read-through mirror of the
*interpreter's own* bytecode (stdlib and site-packages, never a workspace path): symlinks to its
`__pycache__/*.pyc` files in the prefix layout, built once per interpreter, its cache tag and the state of
its directories, and reused by every run and process. Keyed by the interpreter that runs the evaluator — the
project's, not Proctor's — so a project on another Python version loads its own stdlib's bytecode too.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.sandbox.model import Interpreter

__all__ = ["bytecode_mirror", "cache_root", "prepare_pycache"]

_MIRROR_GRACE_S = 24 * 3600
_mirror_lock = threading.Lock()
_mirror_cache: dict[tuple[str, str, tuple[str, ...]], Path | None] = {}


def cache_root() -> Path:
    """Proctor's cache directory (the mirrors, the probe's outside dir)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "proctor"


def prepare_pycache(pycache: Path, interpreter: Interpreter) -> None:
    """Make `pycache` a fresh prefix dir whose top-level entries link into `interpreter`'s bytecode mirror.

    Python looks up `<prefix>/<absolute source dir>/<name>.<tag>.pyc`; linking only the mirror's top-level
    directories means interpreter modules load their bytecode while every workspace path finds nothing.
    """
    pycache.mkdir(parents=True, exist_ok=True)
    mirror = bytecode_mirror(interpreter)
    if mirror is None:
        return
    try:
        entries = list(os.scandir(mirror))
    except FileNotFoundError:
        # Another process replaced the mirror after a package change: look it up again, once.
        with _mirror_lock:
            _mirror_cache.clear()
        mirror = bytecode_mirror(interpreter)
        entries = list(os.scandir(mirror)) if mirror is not None and mirror.is_dir() else []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            link = pycache / entry.name
            if not link.exists():
                with contextlib.suppress(OSError):
                    os.symlink(entry.path, link)


def proctor_bytecode_dirs() -> tuple[str, ...]:
    """Proctor's own interpreter's import directories (stdlib, lib-dynload, site-packages), never a workspace."""
    prefixes = {
        os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    }
    return bytecode_dirs(sys.path, prefixes)


def bytecode_dirs(path: list[str], prefixes: set[str]) -> tuple[str, ...]:
    """The entries of an interpreter's sys.path inside its prefixes, spelled as found there (Python names
    bytecode after that spelling) and, when it differs, as the real path (the spelling inside a sandbox)."""
    dirs: list[str] = []
    for entry in path:
        if not entry or not os.path.isdir(entry):
            continue
        real, spelled = os.path.realpath(entry), os.path.abspath(entry)
        if any(real == p or real.startswith(p + os.sep) for p in prefixes):
            dirs += [d for d in (spelled, real) if d not in dirs]
    return tuple(dirs)


def bytecode_mirror(interpreter: Interpreter) -> Path | None:
    """`interpreter`'s bytecode mirror in PYTHONPYCACHEPREFIX layout (None without a writable cache or a
    known cache tag: runs still work, they compile from source).

    Keyed by the interpreter, its cache tag and its directories' modification times, so installing a
    package builds a new one. Built once per machine (a few seconds for a large venv), then reused.
    """
    key = (interpreter.executable, interpreter.cache_tag, interpreter.bytecode_dirs)
    with _mirror_lock:
        if key in _mirror_cache:
            return _mirror_cache[key]
        result: Path | None = None
        if interpreter.cache_tag and interpreter.bytecode_dirs:
            result = _find_or_build(key)
        _mirror_cache[key] = result
        return result


def _find_or_build(key: tuple[str, str, tuple[str, ...]]) -> Path | None:
    executable, tag, dirs = key
    name = hashlib.sha256(repr((executable, tag)).encode()).hexdigest()[:12]
    stamps = []
    for directory in dirs:
        with contextlib.suppress(OSError):
            stamps.append((directory, os.stat(directory).st_mtime_ns))
    state = hashlib.sha256(repr(stamps).encode()).hexdigest()[:12]
    target = cache_root() / "pycache" / f"{name}-{state}"
    if not (target / ".complete").is_file():
        try:
            _build_mirror(target, list(dirs), tag)
        except OSError:
            return None
    return target


def _build_mirror(target: Path, dirs: list[str], tag: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for top in dirs:
            _link_bytecode(top, staging, f".{tag}.pyc")
        (staging / ".complete").write_text("ok\n", encoding="utf-8")
        try:
            os.rename(staging, target)
        except OSError:
            if not (target / ".complete").is_file():
                raise
        _remove_stale(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _link_bytecode(top: str, staging: Path, suffix: str) -> None:
    """Link every `__pycache__/<name><suffix>` under `top` at `staging/<source dir>/`."""
    for current, subdirs, files in os.walk(top):
        if os.path.basename(current) != "__pycache__":
            continue
        subdirs.clear()
        wanted = [name for name in files if name.endswith(suffix) and name.count(".") == 2]
        if not wanted:
            continue
        out = staging / os.path.dirname(current).lstrip(os.sep)
        out.mkdir(parents=True, exist_ok=True)
        for name in wanted:
            with contextlib.suppress(FileExistsError):  # two spellings of one directory
                os.symlink(os.path.join(current, name), out / name)


def _remove_stale(target: Path) -> None:
    """The same interpreter's mirrors from before a package changed; a running process may still use a
    recent one, so only those older than a day go."""
    interpreter = target.name.split("-")[0]
    stale_before = time.time() - _MIRROR_GRACE_S
    for old in target.parent.glob(f"{interpreter}-*"):
        with contextlib.suppress(OSError):
            if old != target and old.is_dir() and old.stat().st_mtime < stale_before:
                shutil.rmtree(old, ignore_errors=True)
