"""Hardened git (SPEC §4.3): every git command Proctor runs goes through `run_git` or its byte twins.

A candidate controls the files of its commit, never Proctor's git: hooks and fsmonitor are disabled on the
command line, system and global config are ignored, no `GIT_*` variable of the caller leaks in (a stray
`GIT_DIR` or `GIT_INDEX_FILE` would point every command somewhere else), and nothing ever prompts.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

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


def explain_failure(repo: Path, args: tuple[str, ...], stderr: bytes) -> str:
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


def git_failure(
    repo: Path, args: tuple[str, ...], argv: list[str], returncode: int | None, stderr: bytes
) -> GitError:
    """The GitError of a git process that failed: its explanation, and what ran and what it said."""
    return GitError(
        explain_failure(repo, args, stderr),
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
        raise git_failure(repo, args, argv, proc.returncode, proc.stderr)
    return proc.stdout


def run_git(repo: Path, *args: str, check: bool = True, input: bytes | None = None) -> str:
    """Run one hardened git command in `repo` and return its stdout; failures raise GitError (one line)."""
    return run_git_bytes(repo, *args, check=check, input=input).decode("utf-8", "surrogateescape")


def check_ref(repo: Path, ref: str) -> None:
    """Refuse a ref no git command could name (empty, or with a NUL or newline that would split a batch)."""
    if not ref or any(ch in ref for ch in "\0\n\r"):
        raise GitError(f"ref {ref!r} does not exist in {repo}")


def resolve_commit(repo: Path, ref: str) -> str:
    """The full sha of the commit `ref` names; a missing ref is one clear GitError naming ref and repo."""
    check_ref(repo, ref)
    argv = git_argv(repo, ("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"))
    try:
        proc = subprocess.run(argv, capture_output=True, env=git_env(), check=False)
    except FileNotFoundError:
        raise GitError(NO_GIT, argv=argv) from None
    sha = proc.stdout.decode("ascii", "replace").strip()
    if proc.returncode == 0 and sha:
        return sha
    if not Path(repo).is_dir() or b"not a git repository" in proc.stderr:
        raise git_failure(repo, ("rev-parse",), argv, proc.returncode, proc.stderr)
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


def is_object_id(text: str) -> bool:
    """A full hex object id (sha1 or sha256): immutable, unlike a ref name."""
    return len(text) in (40, 64) and set(text) <= _HEX


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
