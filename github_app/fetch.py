"""Fetching a pull request's commits with the installation token held in memory only (SPEC §10).

The token reaches git as an `http.extraHeader` through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/
`GIT_CONFIG_VALUE_n` in the git process's environment: never in a URL, a file or `.git/config`, and never in
any environment an evaluator or candidate gets (they are started by core's runner from an allow-list). Every
command is core's hardened git (`core.integrity.git`: hooks and fsmonitor off, no system or global config,
no replace objects); the repository is a bare mirror in the data dir, and nothing is ever checked out.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
from collections.abc import Sequence
from pathlib import Path

from core.errors import GitError
from core.integrity.git import git_argv, git_env, is_object_id, run_git
from core.integrity.object_store import resolve_commits

FETCH_TIMEOUT_S = 600


def credential_env(token: str) -> dict[str, str]:
    """git's environment with the token as an in-memory Basic credential for user `x-access-token`."""
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
    env = git_env()
    env.update(
        GIT_CONFIG_COUNT="2",
        GIT_CONFIG_KEY_0="http.extraHeader",
        GIT_CONFIG_VALUE_0=f"Authorization: Basic {basic}",
        GIT_CONFIG_KEY_1="credential.helper",
        GIT_CONFIG_VALUE_1="",
    )
    return env


def mirror_dir(data_dir: Path, repo: str) -> Path:
    """Where the bare mirror of `repo` ("owner/name") lives; one per repository, reused across jobs."""
    digest = hashlib.sha256(repo.lower().encode()).hexdigest()[:16]
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in repo)
    return data_dir / "repos" / f"{safe}-{digest}.git"


def _missing(mirror: Path, shas: Sequence[str]) -> list[str]:
    missing = []
    for sha in shas:
        try:
            resolve_commits(mirror, [sha])
        except GitError:
            missing.append(sha)
    return missing


def _fetch(mirror: Path, url: str, token: str, refspecs: Sequence[str], options: Sequence[str] = ()) -> None:
    argv = git_argv(
        mirror,
        ("fetch", "--quiet", "--no-tags", "--no-recurse-submodules", *options, "--", url, *refspecs),
    )
    try:
        proc = subprocess.run(
            argv, env=credential_env(token), capture_output=True, timeout=FETCH_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"git fetch from {url} timed out after {FETCH_TIMEOUT_S} s", argv=argv) from None
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        detail = lines[-1].removeprefix("fatal: ") if lines else f"exit {proc.returncode}"
        stderr = proc.stderr.decode("utf-8", "replace")
        raise GitError(
            f"git fetch from {url} failed: {detail.replace(token, '***')}",
            argv=argv,
            returncode=proc.returncode,
            stderr=stderr.replace(token, "***") if token else stderr,
        )


def fetch_commits(
    data_dir: Path, repo: str, url: str, token: str, shas: Sequence[str], *, pull: int = 0, head_url: str = ""
) -> Path:
    """The bare mirror of `repo` holding every commit in `shas`, fetching what is missing from `url`.

    By id first (GitHub serves any reachable commit); for servers that only serve advertised refs, then the
    branches, the pull request's head ref, and last the head repository (a fork) when it is another URL.
    """
    for sha in shas:
        if not is_object_id(sha):
            raise GitError(f"not a commit id: {sha!r}")
    mirror = mirror_dir(data_dir, repo)
    if not (mirror / "HEAD").exists():
        mirror.mkdir(parents=True, exist_ok=True)
        run_git(mirror, "init", "--bare", "--quiet")
    attempts: list[tuple[str, list[str]]] = [
        (url, list(_missing(mirror, shas))),
        (url, ["+refs/heads/*:refs/remotes/origin/*"]),
    ]
    if pull:
        attempts.append((url, [f"+refs/pull/{pull}/head:refs/remotes/pull/{pull}"]))
    if head_url and head_url != url:
        attempts.append((head_url, ["+refs/heads/*:refs/remotes/head/*"]))
    errors: list[str] = []
    for source, refspecs in attempts:
        if not _missing(mirror, shas):
            return mirror
        try:
            _fetch(mirror, source, token, refspecs)
        except GitError as exc:
            errors.append(str(exc))
    still = _missing(mirror, shas)
    if still:
        raise GitError(f"{url} does not have commit {still[0]}" + (f" ({errors[0]})" if errors else ""))
    return mirror


def fetch_branches(mirror: Path, url: str, token: str) -> None:
    """Every branch of `url` as the mirror's own `refs/heads/*` (a campaign's candidate globs name branches);
    branches deleted there are pruned here. The mirror is bare: nothing is checked out."""
    _fetch(mirror, url, token, ["+refs/heads/*:refs/heads/*"], options=("--prune",))
