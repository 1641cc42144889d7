"""The persistent git object store: long-lived `git cat-file` processes per repository (SPEC §4.1 fast path).

An unchanged suite must cost O(1) tree lookups, and a git process costs milliseconds, so the guard asks one
process per kind of question and keeps it; at most a few repositories' stores are kept, a forked child
starts its own, and all stop at exit. Every process is started the hardened way (`git.git_argv`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, NoReturn, TypeVar

from core.errors import GitError
from core.integrity.git import (
    NO_GIT,
    ObjectInfo,
    batch_check,
    check_ref,
    explain_failure,
    git_argv,
    git_env,
    git_failure,
    is_object_id,
    resolve_commit,
)

_T = TypeVar("_T")
_CHUNK_BYTES = 8192  # requests per write stay far below any pipe buffer, so git can never block us both
_MAX_STORES = 8


def _identity(repo: str) -> tuple[int, ...]:
    """Which repository lives at `repo` now: a directory replaced by a new clone gets a new store."""
    st = os.stat(repo)
    ident: tuple[int, ...] = (st.st_dev, st.st_ino)
    try:
        git_st = os.lstat(os.path.join(repo, ".git"))
    except OSError:
        return ident
    return (*ident, git_st.st_dev, git_st.st_ino)


class ObjectStore:
    """Long-lived `git cat-file --batch-check` / `--batch` processes for one repository.

    An unchanged suite must cost O(1) tree lookups (SPEC §11), and a git process costs milliseconds, so the
    guard asks one process per kind of question and keeps it. Only full object ids (and `<oid>:<path>`,
    `<oid>^{tree}`) may be asked: objects never change, but a long-lived git keeps a stale view of refs (a
    packed-refs file rewritten within the same second looks unchanged to it), so ref names are always
    resolved by a fresh process (`resolve_commits`).
    """

    def __init__(self, repo: str) -> None:
        self.repo = repo
        self.identity = _identity(repo)
        self._lock = threading.Lock()
        self._procs: dict[str, subprocess.Popen[bytes]] = {}
        self._errors: dict[str, IO[bytes]] = {}

    def _proc(self, mode: str) -> subprocess.Popen[bytes]:
        proc = self._procs.get(mode)
        if proc is not None and proc.poll() is None:
            return proc
        self._stop(mode)  # it died between requests (killed, OOM): start afresh
        # Kept open as long as the process runs; read only to explain a failure.
        errors = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            proc = subprocess.Popen(
                git_argv(Path(self.repo), ("cat-file", mode)),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                env=git_env(),
            )
        except FileNotFoundError:
            errors.close()
            raise GitError(NO_GIT, argv=git_argv(Path(self.repo), ("cat-file", mode))) from None
        self._procs[mode], self._errors[mode] = proc, errors
        return proc

    def _stop(self, mode: str) -> bytes:
        """Stop one process; what it wrote to stderr."""
        proc, errors = self._procs.pop(mode, None), self._errors.pop(mode, None)
        if proc is not None:
            proc.kill()
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        if errors is None:
            return b""
        errors.seek(0)
        stderr = errors.read()
        errors.close()
        return stderr

    def _fail(self, mode: str) -> NoReturn:
        """The process died during a request (not a repository, a corrupt object store): one GitError."""
        proc = self._procs.get(mode)
        returncode = proc.poll() if proc is not None else None
        argv = git_argv(Path(self.repo), ("cat-file", mode))
        raise git_failure(Path(self.repo), ("cat-file",), argv, returncode, self._stop(mode))

    def _exchange(self, mode: str, specs: list[str], read_one: Callable[[IO[bytes]], _T]) -> list[_T]:
        for spec in specs:
            if "\n" in spec or "\0" in spec:
                raise GitError(f"ref {spec!r} does not exist in {self.repo}")
            if not is_object_id(spec.partition(":")[0].partition("^")[0]):
                raise ValueError(f"ObjectStore is asked only about object ids, not {spec!r}")
        answers: list[_T] = []
        with self._lock:
            proc = self._proc(mode)
            assert proc.stdin is not None and proc.stdout is not None
            start = 0
            while start < len(specs):
                size, stop = 0, start
                while stop < len(specs) and (stop == start or size + len(specs[stop]) < _CHUNK_BYTES):
                    size += len(specs[stop]) + 1
                    stop += 1
                try:
                    proc.stdin.write(
                        "".join(f"{s}\n" for s in specs[start:stop]).encode("utf-8", "surrogateescape")
                    )
                    proc.stdin.flush()
                    for _ in range(start, stop):
                        answers.append(read_one(proc.stdout))
                except (OSError, EOFError):
                    self._fail(mode)
                start = stop
        return answers

    def info(self, specs: Sequence[str]) -> list[ObjectInfo]:
        """`git cat-file --batch-check` answers for object ids or `<oid>:<path>` names, in order."""
        names = list(specs)
        lines = self._exchange("--batch-check", names, _read_line)
        return [_parse_info(spec, line) for spec, line in zip(names, lines, strict=True)]

    def require(self, specs: Sequence[str]) -> list[ObjectInfo]:
        """`info` for objects that must exist (commits a fresh git just resolved, their trees).

        A miss means this store may be reading another repository that used to live at the same path (a
        re-clone can even reuse the directory's inode): start afresh once and ask again. Path lookups under
        a commit are only trusted after the commit itself was found, so a stale store can answer only with
        objects of the same ids, which have the same content.
        """
        found = self.info(specs)
        if any(info.oid is None for info in found):
            with self._lock:
                for mode in list(self._procs):
                    self._stop(mode)
            found = self.info(specs)
        return found

    def objects(self, specs: Sequence[str]) -> list[tuple[ObjectInfo, bytes]]:
        """Type, id and content of each object (an empty info and b"" when it does not exist)."""
        names = list(specs)
        found = self._exchange("--batch", names, _read_object)
        return [(_parse_info(spec, header), data) for spec, (header, data) in zip(names, found, strict=True)]

    def blobs(self, oids: Iterable[str]) -> dict[str, bytes]:
        """Contents by object id; a missing object is a GitError."""
        unique = list(dict.fromkeys(oids))
        result = {}
        for oid, (info, data) in zip(unique, self.objects(unique), strict=True):
            if info.oid is None:
                raise GitError(
                    f"git cat-file failed in {self.repo}: object {oid} is missing",
                    argv=git_argv(Path(self.repo), ("cat-file", "--batch")),
                )
            result[oid] = data
        return result

    def close(self) -> None:
        with self._lock:
            for mode in list(self._procs):
                self._stop(mode)


def _read_line(stream: IO[bytes]) -> str:
    line = stream.readline()
    if not line.endswith(b"\n"):
        raise EOFError
    return line[:-1].decode("utf-8", "surrogateescape")


def _read_object(stream: IO[bytes]) -> tuple[str, bytes]:
    header = _read_line(stream)
    parts = header.rsplit(" ", 2)
    if len(parts) != 3 or not parts[2].isdigit() or parts[1] not in ("blob", "tree", "commit", "tag"):
        return header, b""
    size = int(parts[2])
    data = stream.read(size)
    if len(data) != size or stream.read(1) != b"\n":
        raise EOFError
    return header, data


def _parse_info(spec: str, line: str) -> ObjectInfo:
    parts = line.rsplit(" ", 2)
    if len(parts) == 3 and parts[2].isdigit() and parts[1] in ("blob", "tree", "commit", "tag"):
        return ObjectInfo(spec, parts[0], parts[1], int(parts[2]))
    return ObjectInfo(spec, None, None, 0)


_STORES: dict[str, ObjectStore] = {}
_STORES_LOCK = threading.Lock()


def _forget_after_fork() -> None:
    """A forked child (a campaign worker) starts its own stores: the parent's pipes and locks are not its own."""
    global _STORES_LOCK
    _STORES_LOCK = threading.Lock()
    _STORES.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


def object_store(repo: Path | str) -> ObjectStore:
    """The process-wide store of `repo` (at most a few are kept; a forked child starts its own)."""
    key = os.path.abspath(repo)
    try:
        identity = _identity(key)
    except OSError:
        raise GitError(explain_failure(Path(repo), ("cat-file",), b"")) from None
    stale: list[ObjectStore] = []
    with _STORES_LOCK:
        store = _STORES.pop(key, None)
        if store is not None and store.identity != identity:
            stale.append(store)
            store = None
        if store is None:
            store = ObjectStore(key)
        _STORES[key] = store
        while len(_STORES) > _MAX_STORES:
            stale.append(_STORES.pop(next(iter(_STORES))))
    for old in stale:
        old.close()
    return store


def close_object_stores() -> None:
    """Stop every persistent git process this process started (also run at exit)."""
    with _STORES_LOCK:
        stores = list(_STORES.values())
        _STORES.clear()
    for store in stores:
        store.close()


atexit.register(close_object_stores)


def resolve_commits(repo: Path, refs: Sequence[str]) -> list[str]:
    """Full commit ids of `refs`; names cost one fresh git process in all, object ids none (when warm)."""
    specs = [f"{ref}^{{commit}}" for ref in refs]
    for ref in refs:
        check_ref(repo, ref)
    by_name = [index for index, ref in enumerate(refs) if not is_object_id(ref)]
    infos: list[ObjectInfo | None] = [None] * len(refs)
    if by_name:
        for index, info in zip(by_name, batch_check(repo, [specs[i] for i in by_name]), strict=True):
            infos[index] = info
    by_id = [index for index, ref in enumerate(refs) if is_object_id(ref)]
    if by_id:
        for index, info in zip(by_id, object_store(repo).require([specs[i] for i in by_id]), strict=True):
            infos[index] = info
    commits = []
    for ref, found in zip(refs, infos, strict=True):
        if found is None or found.oid is None:
            resolve_commit(repo, ref)  # raises the one-line "does not exist" (or "not a repository") error
            raise GitError(f"ref {ref!r} does not exist in {repo}")
        commits.append(found.oid)
    return commits
