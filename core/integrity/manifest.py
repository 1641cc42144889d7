"""The suite manifest and fingerprint, byte-for-byte Kapso's (SPEC §4.1), plus what Kapso does not record.

`build_manifest` is Kapso 0.7.10's `build_evaluation_manifest` (same files, same digests, same order, same
refusals), computed by a 2-thread chunked hasher over a stat-free walk (SPEC §11: ≤ 0.55× Kapso's time); `manifest_fingerprint` is its `manifest_fingerprint`.
`snapshot` adds the per-path `modes` (type and executable bit, including `__pycache__`/`*.pyc` entries the
manifest skips) so the guard can see what content hashes cannot, without changing the evaluator_id.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import stat
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from core.errors import IntegrityError, WorkspaceError
from core.integrity.classify import JUNK_DIRS, JUNK_SUFFIXES, is_junk

if TYPE_CHECKING:
    from core.integrity.settings import GuardConfig

Kind = Literal["file", "symlink", "dir", "submodule", "special"]
# 128 KiB reads stay in the CPU cache between the copy and the hash: 1.5x faster than 1 MiB on big files.
_CHUNK = 128 << 10
_PARALLEL_MIN_BYTES = 4 << 20
_PARALLEL_MIN_FILES = 16


@dataclass(frozen=True)
class FileInfo:
    kind: Kind
    executable: bool
    size: int


def _kind(mode: int) -> Kind:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "special"


def scan(root: Path, *, skip_root_git: bool = False) -> dict[str, FileInfo]:
    """Every path under `root` (symlinks not followed), sorted like Kapso's `sorted(root.rglob("*"))`.

    A directory holding a `.git` entry is a checked-out submodule; it is still descended into, because Kapso's
    manifest hashes whatever is there.
    """
    found: list[tuple[tuple[str, ...], FileInfo]] = []
    pending: list[tuple[str, tuple[str, ...]]] = [(str(root), ())]  # a stack, not recursion: any depth
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            raise WorkspaceError(
                f"cannot read directory {directory}: {exc.strerror}", path=directory
            ) from None
        for entry in entries:
            if skip_root_git and not prefix and entry.name == ".git":
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                raise WorkspaceError(f"cannot stat {entry.path}: {exc.strerror}", path=entry.path) from None
            kind = _kind(st.st_mode)
            parts = (*prefix, entry.name)
            if kind == "dir" and os.path.lexists(os.path.join(entry.path, ".git")):
                kind = "submodule"
            executable = kind == "file" and bool(st.st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))
            found.append((parts, FileInfo(kind, executable, st.st_size if kind == "file" else 0)))
            if kind in ("dir", "submodule"):
                pending.append((entry.path, parts))
    found.sort(key=lambda item: item[0])
    return {"/".join(parts): info for parts, info in found}


def _hash_one(path: str, buffer: bytearray) -> str:
    digest = hashlib.sha256()
    view = memoryview(buffer)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise WorkspaceError(f"cannot read {path}: {exc.strerror}", path=path) from None
    try:
        while True:
            count = os.readv(fd, [view])
            if not count:
                break
            digest.update(view[:count])
    finally:
        os.close(fd)
    return digest.hexdigest()


def hash_files(paths: Sequence[Path | str], *, threads: int = 2, total_bytes: int | None = None) -> list[str]:
    """sha256 hex of each file, read in 128 KiB chunks by `threads` workers (hashlib releases the GIL).

    Each worker takes the next file, so a big file keeps one thread busy while the other hashes the rest.
    Without `total_bytes`, many files are hashed in parallel and a few in the calling thread.
    """
    names = [os.fspath(p) for p in paths]
    results: list[str] = [""] * len(names)
    if total_bytes is None:
        total_bytes = _PARALLEL_MIN_BYTES if len(names) >= _PARALLEL_MIN_FILES else 0
    workers = max(1, min(threads, len(names))) if total_bytes >= _PARALLEL_MIN_BYTES else 1
    counter = itertools.count()
    errors: list[BaseException] = []

    def work() -> None:
        buffer = bytearray(_CHUNK)
        try:
            while not errors:
                index = next(counter)
                if index >= len(names):
                    return
                results[index] = _hash_one(names[index], buffer)
        except BaseException as exc:
            errors.append(exc)

    if workers == 1:
        work()
    else:
        pool = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
    if errors:
        raise errors[0]
    return results


def _check_suite_root(root: Path) -> None:
    if root.is_symlink():
        raise IntegrityError(f"the suite directory cannot be a symlink: {root}")
    if not root.exists():
        raise WorkspaceError(f"suite directory does not exist: {root}", path=root)
    if not root.is_dir():
        raise WorkspaceError(f"suite path is not a directory: {root}", path=root)


def _manifest_from(root: Path, listing: Mapping[str, FileInfo], *, strict: bool) -> dict[str, str]:
    wanted: list[str] = []
    total = 0
    for rel, info in listing.items():
        if is_junk(rel):
            continue
        if info.kind == "symlink":
            if strict:
                raise IntegrityError(
                    f"the suite contains a symlink: {rel} (Kapso cannot fingerprint it either; replace it by the file)"
                )
            continue
        if info.kind != "file":
            continue
        wanted.append(rel)
        total += info.size
    digests = hash_files([root / rel for rel in wanted], total_bytes=total)
    return dict(zip(wanted, digests, strict=True))


def _is_junk_name(name: str) -> bool:
    """`is_junk` for the last component: Kapso's `Path.suffix.lower()` is `.pyc` (a leading dot is no suffix)."""
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in JUNK_SUFFIXES


def _manifest_files(root: str) -> list[tuple[str, ...]]:
    """Kapso's walk without a stat per file: the sorted path parts of every regular non-junk file.

    The directory entry's type says file, directory or symlink; `__pycache__` is junk at any depth, so it is
    not entered. Raises for the first symlink in Kapso's order, as Kapso does.
    """
    files: list[tuple[str, ...]] = []
    links: list[tuple[str, ...]] = []
    pending: list[tuple[str, tuple[str, ...]]] = [(root, ())]  # a stack, not recursion: any depth
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            raise WorkspaceError(
                f"cannot read directory {directory}: {exc.strerror}", path=directory
            ) from None
        for entry in entries:
            name = entry.name
            if name in JUNK_DIRS:
                continue
            parts = (*prefix, name)
            try:
                if entry.is_symlink():
                    if not _is_junk_name(name):
                        links.append(parts)
                elif entry.is_dir(follow_symlinks=False):
                    pending.append((entry.path, parts))
                elif entry.is_file(follow_symlinks=False) and not _is_junk_name(name):
                    files.append(parts)
            except OSError as exc:
                raise WorkspaceError(f"cannot stat {entry.path}: {exc.strerror}", path=entry.path) from None
    if links:
        rel = "/".join(min(links))
        raise IntegrityError(
            f"the suite contains a symlink: {rel} (Kapso cannot fingerprint it either; replace it by the file)"
        )
    files.sort()
    return files


def build_manifest(suite_dir: Path) -> dict[str, str]:
    """Kapso's `build_evaluation_manifest`: {posix path: sha256} of every regular non-junk file."""
    root = Path(suite_dir).expanduser()
    _check_suite_root(root)
    base = os.fspath(root)
    files = _manifest_files(base)
    digests = hash_files([os.path.join(base, *parts) for parts in files])
    manifest = {"/".join(parts): digest for parts, digest in zip(files, digests, strict=True)}
    if not manifest:
        raise IntegrityError(f"the suite directory contains no files: {root}")
    return manifest


def manifest_fingerprint(manifest: Mapping[str, str]) -> str:
    """Kapso's `manifest_fingerprint`: the evaluator_id."""
    encoded = json.dumps(dict(manifest), sort_keys=True, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def git_manifest(repo: Path, rev: str, suite: str) -> dict[str, str]:
    """The suite's manifest at commit `rev`, from git blobs, hashed exactly as Kapso hashes files."""
    from core.integrity.git import ls_tree, read_blobs

    entries = [e for e in ls_tree(repo, f"{rev}:{suite}") if e.type == "blob" and not is_junk(e.path)]
    blobs = read_blobs(repo, [e.oid for e in entries])
    return {e.path: hashlib.sha256(blobs[e.oid]).hexdigest() for e in entries}


def mode_of(info: FileInfo) -> dict[str, str | bool]:
    return {"type": info.kind, "executable": info.executable}


@dataclass(frozen=True)
class SuiteSnapshot:
    """A suite's identity (manifest, evaluator_id) and what Kapso's identity ignores (modes, junk, inputs).

    `junk` holds the sha256 of the `__pycache__`/`*.pyc` files the manifest skips (planted bytecode is IN005);
    `inputs` holds digests of the protected inputs (data dir, brief, protected_paths) when the snapshot was
    taken with a config, so `rehash_findings` also sees a run that rewrote them.
    """

    manifest: dict[str, str]
    modes: dict[str, dict[str, str | bool]]
    evaluator_id: str
    junk: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)


def snapshot(suite_dir: Path, config: GuardConfig | None = None) -> SuiteSnapshot:
    """Manifest, modes and evaluator_id of a suite. Unlike `build_manifest` it records symlinks (in `modes`)
    instead of refusing them, so a tampered tree can still be described; a clean suite gets Kapso's id."""
    root = Path(suite_dir)
    _check_suite_root(root)
    listing = scan(root)
    manifest = _manifest_from(root, listing, strict=False)
    junk_files = [rel for rel, info in listing.items() if info.kind == "file" and is_junk(rel)]
    junk = dict(zip(junk_files, hash_files([root / rel for rel in junk_files]), strict=True))
    inputs: dict[str, str] = {}
    if config is not None:
        depth = len(Path(config.evaluation_dir).parts)
        workspace = root.parents[depth - 1] if depth else root
        inputs = input_digests(workspace, config)
    return SuiteSnapshot(
        manifest=manifest,
        modes={rel: mode_of(info) for rel, info in listing.items()},
        evaluator_id=manifest_fingerprint(manifest),
        junk=junk,
        inputs=inputs,
    )


def protected_inputs(config: GuardConfig) -> list[str]:
    """Workspace-relative roots of the protected inputs (IN010): the data dir, the brief, protected_paths."""
    roots = [config.data_dir, config.brief, *config.protected_paths]
    cleaned = []
    for raw in roots:
        rel = Path(raw).as_posix().strip("/")
        if rel and rel != "." and rel not in cleaned:
            cleaned.append(rel)
    return cleaned


def describe_entry(workspace: Path, rel: str, info: FileInfo, digest: str = "") -> str:
    """One comparable string per input path: type, exec bit and content (or symlink target)."""
    if info.kind == "symlink":
        return f"symlink:{os.readlink(workspace / rel)}"
    if info.kind == "file":
        return f"file:{'x' if info.executable else '-'}:{digest}"
    return info.kind


def input_digests(workspace: Path, config: GuardConfig) -> dict[str, str]:
    """Describe every path under the protected inputs of `workspace` (missing roots are simply absent)."""
    entries: dict[str, FileInfo] = {}
    for root in protected_inputs(config):
        target = workspace / root
        if not os.path.lexists(target):
            continue
        st = target.lstat()
        entries[root] = FileInfo(_kind(st.st_mode), bool(st.st_mode & 0o111) and stat.S_ISREG(st.st_mode), 0)
        if entries[root].kind == "dir":
            for rel, info in scan(target).items():
                entries[f"{root}/{rel}"] = info
    files = [rel for rel, info in entries.items() if info.kind == "file"]
    digests = dict(zip(files, hash_files([workspace / rel for rel in files]), strict=True))
    return {rel: describe_entry(workspace, rel, info, digests.get(rel, "")) for rel, info in entries.items()}
