"""Walking and removing directory trees a candidate controls, without recursion (SPEC §4.3).

A candidate can commit or create thousands of nested directories. Python 3.11's `os.walk`, `Path.rglob` and
`shutil.rmtree` recurse once per level and raise RecursionError near a thousand, which would end a whole
campaign for one hostile tree. These keep their own stack, never follow symlinks, and `remove_tree` also
removes read-only directories and names that are not valid UTF-8.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator

WalkStep = tuple[str, list[str], list[str]]


def _listing(directory: str) -> tuple[list[str], list[str]] | None:
    """(directory names, other names) as `os.walk` splits them; None when it cannot be read."""
    dirs: list[str] = []
    others: list[str] = []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                (dirs if is_dir else others).append(entry.name)
    except OSError:
        return None
    return dirs, others


def walk(top: str | os.PathLike[str]) -> Iterator[WalkStep]:
    """`os.walk(top)` (top-down, same order, symlinks to directories listed but never entered), iteratively.

    Like `os.walk`, the caller may prune by editing the yielded directory list in place; unreadable
    directories are skipped.
    """
    stack = [os.fspath(top)]
    while stack:
        directory = stack.pop()
        found = _listing(directory)
        if found is None:
            continue
        dirs, others = found
        yield directory, dirs, others
        for name in reversed(dirs):
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                stack.append(path)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _open_dir(name: str, dir_fd: int) -> int:
    """Open a real directory (never a symlink) relative to `dir_fd`, making it readable when it is not."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=dir_fd)
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)


def _clear(fd: int) -> list[str]:
    """Unlink every entry of the directory `fd` that is not a directory; the names of its subdirectories."""
    with contextlib.suppress(OSError):
        os.fchmod(fd, 0o700)  # a read-only directory's entries cannot be unlinked
    subdirs: list[str] = []
    try:
        entries = list(os.scandir(fd))
    except OSError:
        return subdirs
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if is_dir:
            subdirs.append(entry.name)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.name, dir_fd=fd)
    return subdirs


def _remove_at(parent: int, name: str) -> None:
    """Remove directory `name` of `parent` depth-first, holding one directory descriptor at a time.

    Descending opens `child` relative to the current directory and ascending opens `..`, so neither the
    depth nor the length of the paths matters (no PATH_MAX, no descriptor per level).
    """
    try:
        fd = _open_dir(name, parent)
    except OSError:
        return
    stack: list[tuple[str, list[str]]] = [(name, _clear(fd))]
    while True:
        pending = stack[-1][1]
        if pending:
            child = pending.pop()
            try:
                child_fd = _open_dir(child, fd)
            except OSError:
                continue
            os.close(fd)
            fd = child_fd
            stack.append((child, _clear(fd)))
            continue
        done, _ = stack.pop()
        if not stack:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.rmdir(done, dir_fd=parent)
            return
        try:
            up = os.open("..", _DIR_FLAGS & ~os.O_NOFOLLOW, dir_fd=fd)
        finally:
            os.close(fd)
        fd = up
        with contextlib.suppress(OSError):
            os.rmdir(done, dir_fd=fd)


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Delete `path` and everything under it, best effort (like `rmtree(ignore_errors=True)`), never recursing.

    A symlink is removed, never followed; read-only directories are made writable first; entries that
    still cannot be removed are left and the rest goes.
    """
    root = os.path.abspath(os.fspath(path))
    try:
        if not stat.S_ISDIR(os.lstat(root).st_mode):
            os.unlink(root)
            return
        parent = os.open(os.path.dirname(root), _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError:
        return
    try:
        _remove_at(parent, os.path.basename(root))
    except OSError:
        pass
    finally:
        os.close(parent)
