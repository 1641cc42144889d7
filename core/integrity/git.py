"""Hardened git (SPEC §4.3): every git command Proctor runs goes through `run_git` or its byte twins.

A candidate controls the files of its commit, never Proctor's git: hooks and fsmonitor are disabled on the
command line, system and global config are ignored, no `GIT_*` variable of the caller leaks in (a stray
`GIT_DIR` or `GIT_INDEX_FILE` would point every command somewhere else), and nothing ever prompts.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NoReturn, TypeVar

from core.errors import GitError

NO_GIT = "git is not installed (Proctor needs it to read commits)"
HARDENING = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


def git_env() -> dict[str, str]:
    """The caller's environment without any GIT_* variable, plus the settings that make git predictable."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_TERMINAL_PROMPT="0",
        GIT_ATTR_NOSYSTEM="1",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_GRAFT_FILE="/dev/null",  # .git/info/grafts could otherwise rewrite parents (merge bases)
        GIT_OPTIONAL_LOCKS="0",
        LC_ALL="C",
        LANGUAGE="C",
    )
    return env


def git_argv(repo: Path, args: Iterable[str]) -> list[str]:
    return ["git", *HARDENING, "-C", str(repo), *args]


def _explain(repo: Path, args: tuple[str, ...], stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    text = " ".join(lines)
    if not Path(repo).is_dir():
        return f"repository path {str(repo)!r} does not exist"
    if "not a git repository" in text:
        return f"not a git repository: {repo}"
    detail = next(
        (line for line in lines if line.startswith(("fatal:", "error:"))), lines[-1] if lines else ""
    )
    detail = detail.removeprefix("fatal: ").removeprefix("error: ")
    return f"git {args[0] if args else ''} failed in {repo}: {detail or 'no message'}"


def _failed(
    repo: Path, args: tuple[str, ...], argv: list[str], returncode: int | None, stderr: bytes
) -> GitError:
    """The GitError of a git process that failed: its explanation, and what ran and what it said."""
    return GitError(
        _explain(repo, args, stderr),
        argv=argv,
        returncode=returncode,
        stderr=stderr.decode("utf-8", "replace"),
    )


def run_git_bytes(repo: Path, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
    """Run one hardened git command; stdout as bytes (for -z listings and object contents)."""
    argv = git_argv(repo, args)
    try:
        proc = subprocess.run(argv, input=input, capture_output=True, env=git_env(), check=False)
    except FileNotFoundError:
        raise GitError(NO_GIT, argv=argv) from None
    if check and proc.returncode != 0:
        raise _failed(repo, args, argv, proc.returncode, proc.stderr)
    return proc.stdout


def run_git(repo: Path, *args: str, check: bool = True, input: bytes | None = None) -> str:
    """Run one hardened git command in `repo` and return its stdout; failures raise GitError (one line)."""
    return run_git_bytes(repo, *args, check=check, input=input).decode("utf-8", "surrogateescape")


def _check_ref(repo: Path, ref: str) -> None:
    if not ref or any(ch in ref for ch in "\0\n\r"):
        raise GitError(f"ref {ref!r} does not exist in {repo}")


def resolve_commit(repo: Path, ref: str) -> str:
    """The full sha of the commit `ref` names; a missing ref is one clear GitError naming ref and repo."""
    _check_ref(repo, ref)
    argv = git_argv(repo, ("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"))
    try:
        proc = subprocess.run(argv, capture_output=True, env=git_env(), check=False)
    except FileNotFoundError:
        raise GitError(NO_GIT, argv=argv) from None
    sha = proc.stdout.decode("ascii", "replace").strip()
    if proc.returncode == 0 and sha:
        return sha
    if not Path(repo).is_dir() or b"not a git repository" in proc.stderr:
        raise _failed(repo, ("rev-parse",), argv, proc.returncode, proc.stderr)
    raise GitError(
        f"ref {ref!r} does not exist in {repo}",
        argv=argv,
        returncode=proc.returncode,
        stderr=proc.stderr.decode("utf-8", "replace"),
    )


@dataclass(frozen=True)
class ObjectInfo:
    """One answer of `git cat-file --batch-check`: None fields when the object does not exist."""

    spec: str
    oid: str | None
    type: str | None
    size: int


def batch_check(repo: Path, specs: list[str]) -> list[ObjectInfo]:
    """Look up many `<rev>:<path>` style names in one git process."""
    for spec in specs:
        if "\n" in spec or "\0" in spec:
            raise GitError(f"ref {spec!r} does not exist in {repo}")
    out = run_git_bytes(repo, "cat-file", "--batch-check", input="".join(f"{s}\n" for s in specs).encode())
    infos = []
    for spec, line in zip(specs, out.decode("utf-8", "surrogateescape").splitlines(), strict=True):
        parts = line.rsplit(" ", 2)
        if len(parts) == 3 and parts[2].isdigit() and parts[1] in ("blob", "tree", "commit", "tag"):
            infos.append(ObjectInfo(spec, parts[0], parts[1], int(parts[2])))
        else:
            infos.append(ObjectInfo(spec, None, None, 0))
    return infos


def iter_blobs(repo: Path, oids: list[str]) -> Iterator[tuple[str, bytes]]:
    """Stream the contents of many objects through one `git cat-file --batch` process, in order."""
    if not oids:
        return
    proc = subprocess.Popen(
        git_argv(repo, ("cat-file", "--batch")),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=git_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin = proc.stdin

    def feed() -> None:
        try:
            for oid in oids:
                stdin.write(f"{oid}\n".encode())
            stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for oid in oids:
            header = proc.stdout.readline().decode("ascii", "replace").split()
            if len(header) != 3 or not header[2].isdigit():
                raise GitError(
                    f"git cat-file failed in {repo}: object {oid} is missing",
                    argv=git_argv(repo, ("cat-file", "--batch")),
                )
            size = int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)
            yield oid, data
    finally:
        proc.stdout.close()
        proc.kill()
        proc.wait()
        proc.stderr.close()
        writer.join()


def read_blobs(repo: Path, oids: Iterable[str]) -> dict[str, bytes]:
    unique = list(dict.fromkeys(oids))
    return dict(iter_blobs(repo, unique))


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    type: str
    oid: str
    path: str
    size: int = -1  # with `sizes=True`: the blob's size (-1 for gitlinks and trees)


def ls_tree(repo: Path, tree: str, *, recursive: bool = True, sizes: bool = False) -> list[TreeEntry]:
    """Every entry under a tree-ish (paths relative to it), blobs and gitlinks, NUL-safe."""
    args = ["ls-tree", "-z"]
    if recursive:
        args.append("-r")
    if sizes:
        args.append("--long")
    out = run_git_bytes(repo, *args, tree).decode("utf-8", "surrogateescape")
    entries = []
    for record in out.split("\0"):
        if not record:
            continue
        meta, _, path = record.partition("\t")
        mode, kind, oid, *rest = meta.split()
        size = int(rest[0]) if rest and rest[0].isdigit() else -1
        entries.append(TreeEntry(mode, kind, oid, path, size))
    return entries


@dataclass(frozen=True)
class RawChange:
    """One line of `git diff-tree -r --raw`: modes are git's octal strings, "000000" when absent."""

    old_mode: str
    new_mode: str
    old_oid: str
    new_oid: str
    status: str
    path: str


def diff_tree(repo: Path, old: str, new: str) -> list[RawChange]:
    """Every changed blob/gitlink between two commits, renames off, NUL-separated paths."""
    out = run_git_bytes(
        repo, "diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--full-index", "--raw", old, new
    ).decode("utf-8", "surrogateescape")
    fields = out.split("\0")
    changes = []
    index = 0
    while index + 1 < len(fields):
        meta = fields[index]
        if not meta.startswith(":"):
            index += 1
            continue
        old_mode, new_mode, old_oid, new_oid, status = meta[1:].split(" ")
        changes.append(RawChange(old_mode, new_mode, old_oid, new_oid, status[:1], fields[index + 1]))
        index += 2
    return changes


# ------------------------------------------------------------------------------ persistent object reads

_HEX = frozenset("0123456789abcdef")
_T = TypeVar("_T")
_CHUNK_BYTES = 8192  # requests per write stay far below any pipe buffer, so git can never block us both
_MAX_STORES = 8


def is_object_id(text: str) -> bool:
    """A full hex object id (sha1 or sha256): immutable, unlike a ref name."""
    return len(text) in (40, 64) and set(text) <= _HEX


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
        raise _failed(Path(self.repo), ("cat-file",), argv, returncode, self._stop(mode))

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
        raise GitError(_explain(Path(repo), ("cat-file",), b"")) from None
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
        _check_ref(repo, ref)
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


_STATE_DIRS: dict[str, Path | None] = {}


def state_dir(repo: Path) -> Path | None:
    """`<git common dir>/proctor`: Proctor's caches for this repository, never committed (None: not a repo)."""
    key = os.path.abspath(repo)
    if key not in _STATE_DIRS:
        try:
            common = run_git(repo, "rev-parse", "--git-common-dir").strip()
        except GitError:
            return None
        _STATE_DIRS[key] = (Path(repo) / common / "proctor").resolve()
    return _STATE_DIRS[key]


# ------------------------------------------------------------------------------------- tree diff

_TREE_MODES = {b"100644": 0o100644, b"100755": 0o100755, b"120000": 0o120000, b"160000": 0o160000}
_DIR_MODE = 0o40000


def parse_tree(data: bytes, raw_len: int) -> list[tuple[int, bytes, str]] | None:
    """(mode, name, hex oid) of each entry of a canonical tree object; None for anything unusual.

    Unusual means what `git fsck` warns about (odd or zero-padded modes, empty, `.`, `..` or `/` names,
    duplicates, wrong order): those trees go to `git diff-tree` itself, so git's own reading decides.
    """
    entries = []
    names: set[bytes] = set()
    previous = b""
    pos, end = 0, len(data)
    while pos < end:
        space = data.find(b" ", pos, pos + 7)
        if space < 0:
            return None
        nul = data.find(b"\0", space + 1)
        if nul < 0 or nul + 1 + raw_len > end:
            return None
        mode_text, name = data[pos:space], data[space + 1 : nul]
        mode = _DIR_MODE if mode_text == b"40000" else _TREE_MODES.get(mode_text)
        if mode is None or name in (b"", b".", b"..") or b"/" in name or name in names:
            return None
        key = name + b"/" if mode == _DIR_MODE else name
        if key <= previous:
            return None
        names.add(name)
        previous = key
        entries.append((mode, name, data[nul + 1 : nul + 1 + raw_len].hex()))
        pos = nul + 1 + raw_len
    return entries


def diff_trees(store: ObjectStore, old_tree: str, new_tree: str) -> list[RawChange] | None:
    """`git diff-tree -r --raw` of two trees, read level by level through the store.

    Subtrees with equal ids are never opened, so the cost follows what changed, not the size of the
    repository. None when a tree is unusual (see `parse_tree`): the caller then runs `diff_tree`.
    """
    zero = "0" * len(old_tree)
    raw_len = len(old_tree) // 2
    changes: list[RawChange] = []
    level: list[tuple[str, str | None, str | None]] = [("", old_tree, new_tree)]
    while level:
        wanted = [oid for _, old, new in level for oid in (old, new) if oid is not None]
        trees: dict[str, list[tuple[int, bytes, str]]] = {}
        for (info, data), oid in zip(store.objects(wanted), wanted, strict=True):
            parsed = parse_tree(data, raw_len) if info.type == "tree" else None
            if parsed is None:
                return None
            trees[oid] = parsed
        following: list[tuple[str, str | None, str | None]] = []
        for prefix, old, new in level:
            before = {name: (mode, oid) for mode, name, oid in trees[old]} if old else {}
            after = {name: (mode, oid) for mode, name, oid in trees[new]} if new else {}
            for name in sorted(before.keys() | after.keys()):
                o, n = before.get(name), after.get(name)
                if o == n:
                    continue
                path = prefix + name.decode("utf-8", "surrogateescape")
                o_dir = o is not None and o[0] == _DIR_MODE
                n_dir = n is not None and n[0] == _DIR_MODE
                if o_dir or n_dir:
                    following.append(
                        (
                            f"{path}/",
                            o[1] if o is not None and o_dir else None,
                            n[1] if n is not None and n_dir else None,
                        )
                    )
                o_blob = o if o is not None and not o_dir else None
                n_blob = n if n is not None and not n_dir else None
                if o_blob is None and n_blob is None:
                    continue
                if o_blob is None:
                    status = "A"
                elif n_blob is None:
                    status = "D"
                else:
                    status = "M" if (o_blob[0] & 0o170000) == (n_blob[0] & 0o170000) else "T"
                changes.append(
                    RawChange(
                        f"{o_blob[0]:06o}" if o_blob else "000000",
                        f"{n_blob[0]:06o}" if n_blob else "000000",
                        o_blob[1] if o_blob else zero,
                        n_blob[1] if n_blob else zero,
                        status,
                        path,
                    )
                )
        level = following
    return changes
