"""Materialization (SPEC §4.3): a candidate becomes a plain directory, read from the git object store.

Trees and blobs are read as objects (`git ls-tree` and the repository's persistent `git cat-file --batch`),
never checked out or archived, so no `.gitattributes` (eol, filter, ident, export-ignore), no filter or
textconv driver and no `.git/config` or `.git/info/attributes` of the repository can change a byte or run a
command. Never a linked worktree: a linked worktree shares the repository's `.git`, which a run could
rewrite. Every rule is explicit: a tree holding a `.git` component, `..` or an empty name is refused before
anything is written, no path goes through a symlink, exec bits and symlinks are kept exactly as committed,
submodules (gitlinks) become empty directories and are never initialised.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from core.errors import GitError, IntegrityError
from core.integrity.classify import fold, is_junk
from core.integrity.git import TreeEntry, ls_tree, resolve_commit
from core.integrity.object_store import object_store
from core.integrity.settings import GuardConfig
from core.treewalk import remove_tree, walk

# Blobs are read in batches of about this many bytes: one exchange with git each, bounded memory.
_BATCH_BYTES = 32 << 20
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _refused(part: str) -> bool:
    """A path component git would never check out: empty, `.`, `..`, or `.git` in any disguise."""
    if part in ("", ".", ".."):
        return True
    folded = fold(part).rstrip(". ")
    return folded == ".git" or folded.startswith("git~")


def _entries(repo: Path, ref: str, sha: str) -> list[TreeEntry]:
    entries = ls_tree(repo, sha, sizes=True)
    for entry in entries:
        if entry.path.startswith("/") or any(_refused(part) for part in entry.path.split("/")):
            raise GitError(f"cannot materialize {ref!r} from {repo}: invalid path {entry.path!r}")
    return entries


class _Writer:
    """Creates files under one fresh directory, refusing any path that would pass through a non-directory."""

    def __init__(self, dest: Path) -> None:
        self.dest = str(dest)
        self.real_dirs = {self.dest}

    def parent(self, rel: str) -> str:
        current = self.dest
        for part in rel.split("/")[:-1]:
            current = os.path.join(current, part)
            if current in self.real_dirs:
                continue
            try:
                os.mkdir(current, 0o755)
            except FileExistsError:
                if not stat.S_ISDIR(os.lstat(current).st_mode):
                    raise IntegrityError(f"tree entry {rel!r} passes through a non-directory") from None
            self.real_dirs.add(current)
        return current

    def target(self, rel: str) -> str:
        path = os.path.join(self.parent(rel), rel.rsplit("/", 1)[-1])
        if os.path.lexists(path):
            raise IntegrityError(f"tree entry {rel!r} collides with an earlier entry")
        return path

    def write(self, entry: TreeEntry, data: bytes) -> None:
        path = self.target(entry.path)
        if entry.mode == "120000":
            os.symlink(os.fsdecode(data), path)
            return
        fd = os.open(path, _WRITE_FLAGS, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, 0o755 if int(entry.mode, 8) & 0o111 else 0o644)
        finally:
            os.close(fd)

    def gitlink(self, entry: TreeEntry) -> None:
        path = self.target(entry.path)
        os.mkdir(path, 0o755)
        self.real_dirs.add(path)


def _batches(entries: list[TreeEntry]) -> list[list[TreeEntry]]:
    batches: list[list[TreeEntry]] = [[]]
    size = 0
    for entry in entries:
        if batches[-1] and size + entry.size > _BATCH_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(entry)
        size += max(entry.size, 0)
    return batches


def materialize(repo: Path, ref: str, dest: Path) -> str:
    """Write the tree of `ref` into `dest` (created; must be empty) from git objects; return the commit sha."""
    repo, dest = Path(repo), Path(dest)
    sha = resolve_commit(repo, ref)
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise IntegrityError(f"cannot materialize {ref!r} into {dest}: the directory is not empty")
    entries = _entries(repo, ref, sha)
    writer = _Writer(dest)
    blobs = []
    for entry in entries:
        if entry.type == "commit":
            writer.gitlink(entry)
        elif entry.type == "blob" and (entry.mode.startswith("100") or entry.mode == "120000"):
            blobs.append(entry)
    store = object_store(repo)
    for batch in _batches(blobs):
        for entry, (info, data) in zip(batch, store.objects([e.oid for e in batch]), strict=True):
            if info.type != "blob":
                raise GitError(f"cannot materialize {ref!r} from {repo}: object {entry.oid} is missing")
            writer.write(entry, data)
    return sha


def remove_pycache(root: Path) -> None:
    """Delete every `__pycache__` directory under `root` (not following symlinks, at any depth)."""
    for current, dirs, _files in walk(root):
        for name in list(dirs):
            if name == "__pycache__":
                remove_tree(os.path.join(current, name))
                dirs.remove(name)


def overlay_trusted_suite(baseline_dir: Path, candidate_dir: Path, config: GuardConfig) -> None:
    """Replace the candidate's suite with the baseline's bytes (regular files and exec bits only)."""
    rel = Path(config.evaluation_dir)
    source = Path(baseline_dir) / rel
    if source.is_symlink() or not source.is_dir():
        raise IntegrityError(f"the baseline tree {baseline_dir} has no suite directory {rel.as_posix()}/")
    current = Path(candidate_dir)
    for part in rel.parts[:-1]:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            current.unlink()
        current.mkdir(exist_ok=True)
    target = Path(candidate_dir) / rel
    remove_tree(target)
    for directory, dirs, files in walk(source):
        relative = Path(directory).relative_to(source)
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not (Path(directory) / d).is_symlink())
        (target / relative).mkdir(exist_ok=True)  # top-down: the parent exists
        for name in sorted(files):
            origin = Path(directory) / name
            if is_junk((relative / name).as_posix()) or origin.is_symlink() or not origin.is_file():
                continue
            shutil.copyfile(origin, target / relative / name, follow_symlinks=False)
            os.chmod(target / relative / name, 0o755 if origin.stat().st_mode & 0o111 else 0o644)
    remove_pycache(target)
