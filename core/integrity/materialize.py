"""Materialization (SPEC §4.3): a candidate becomes a plain directory, never a linked worktree.

A linked worktree shares the app repository's `.git`: a candidate's run could rewrite `.git/config`
(`core.fsmonitor`, `core.hooksPath`, aliases, filters) and so run code inside Proctor's next git command.
`git archive` output has no link back. The tar stream is extracted here, not by `tarfile.extractall`,
so that every rule is explicit: no absolute or `..` names, no path through a symlink, no `.git` component
(git refuses to check those out; a planted `.git/config` would make later git commands in the tree obey
the candidate), exec bits and symlinks kept exactly as archived, submodules left uninitialised.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tarfile
from pathlib import Path
from typing import IO

from core.errors import GitError, IntegrityError
from core.integrity.classify import has_git_component, is_junk
from core.integrity.git import git_argv, git_env, resolve_commit
from core.integrity.settings import GuardConfig


def _safe_parts(name: str) -> list[str] | None:
    """The member's path components, or None when it must not be written (absolute, `..`, `.git`)."""
    if name.startswith("/") or "\0" in name:
        return None
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if not parts or any(part == ".." for part in parts) or has_git_component("/".join(parts)):
        return None
    return parts


def _extract(stream: IO[bytes], dest: Path) -> None:
    real_dirs = {str(dest)}

    def parent_of(parts: list[str]) -> str:
        current = str(dest)
        for part in parts[:-1]:
            current = os.path.join(current, part)
            if current in real_dirs:
                continue
            try:
                st = os.lstat(current)
            except FileNotFoundError:
                os.mkdir(current, 0o755)
                real_dirs.add(current)
                continue
            if not stat.S_ISDIR(st.st_mode):
                raise IntegrityError(f"archive member {'/'.join(parts)!r} passes through a non-directory")
            real_dirs.add(current)
        return current

    with tarfile.open(fileobj=stream, mode="r|") as archive:
        for member in archive:
            parts = _safe_parts(member.name)
            if parts is None:
                continue
            target = os.path.join(parent_of(parts), parts[-1])
            if member.isdir():
                if not os.path.lexists(target):
                    os.mkdir(target, 0o755)
                elif not os.path.isdir(target) or os.path.islink(target):
                    raise IntegrityError(f"archive member {member.name!r} collides with an earlier entry")
                real_dirs.add(target)
            elif member.issym():
                os.symlink(member.linkname, target)
            elif member.isfile():
                source = archive.extractfile(member)
                assert source is not None
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
                fd = os.open(target, flags, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    shutil.copyfileobj(source, handle, 1 << 20)
                os.chmod(target, 0o755 if member.mode & 0o111 else 0o644)
                os.utime(target, (member.mtime, member.mtime))


def materialize(repo: Path, ref: str, dest: Path) -> str:
    """Extract `git archive` of `ref` into `dest` (created; must be empty) and return the commit sha."""
    repo, dest = Path(repo), Path(dest)
    sha = resolve_commit(repo, ref)
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise IntegrityError(f"cannot materialize {ref!r} into {dest}: the directory is not empty")
    proc = subprocess.Popen(
        git_argv(repo, ("archive", "--format=tar", sha)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=git_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    broken: tarfile.TarError | None = None
    try:
        _extract(proc.stdout, dest)
        # tarfile stops at the end-of-archive marker; git may still be writing the padding blocks. Read them,
        # or closing the pipe kills git with SIGPIPE and a good archive looks like a failed one.
        while proc.stdout.read(1 << 16):
            pass
    except tarfile.TarError as exc:
        broken = exc
    finally:
        proc.stdout.close()
        stderr = proc.stderr.read()
        proc.stderr.close()
        proc.wait()
    if proc.returncode != 0 or broken is not None:
        # git itself refuses trees with paths it would never check out (`.git`, `..`): name what it said.
        lines = [line for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        detail = (
            lines[-1].removeprefix("error: ").removeprefix("fatal: ")
            if lines
            else f"unreadable archive: {broken}"
        )
        raise GitError(f"cannot materialize {ref!r} from {repo}: git archive failed: {detail}")
    return sha


def _remove(path: Path) -> None:
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def remove_pycache(root: Path) -> None:
    """Delete every `__pycache__` directory under `root` (not following symlinks)."""
    for current, dirs, _files in os.walk(root):
        for name in list(dirs):
            if name == "__pycache__":
                _remove(Path(current) / name)
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
    _remove(target)
    for directory, dirs, files in os.walk(source):
        relative = Path(directory).relative_to(source)
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not (Path(directory) / d).is_symlink())
        (target / relative).mkdir(parents=True, exist_ok=True)
        for name in sorted(files):
            origin = Path(directory) / name
            if is_junk((relative / name).as_posix()) or origin.is_symlink() or not origin.is_file():
                continue
            shutil.copyfile(origin, target / relative / name, follow_symlinks=False)
            os.chmod(target / relative / name, 0o755 if origin.stat().st_mode & 0o111 else 0o644)
    remove_pycache(target)
