"""The `[[prompt_task]]` entries of a repository's default branch, as the feedback API and the prompt job read
them (never a pull request's or another branch's config).

The branch is fetched into the app's bare mirror of the repository with the installation token in memory
(`fetch.credential_env`); the config is read from the fetched commit with `git cat-file`, nothing is checked out.
The web process keeps what it read for `CACHE_S` seconds so a burst of feedback posts costs one fetch.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.config import CONFIG_FILE, PYPROJECT_FILE, Config, parse_config_text
from core.errors import GitError
from core.integrity.git import git_argv, run_git, run_git_bytes
from github_app.feedback_store import ApiKey
from github_app.fetch import FETCH_TIMEOUT_S, credential_env, mirror_dir

CACHE_S = 60.0
TokenFor = Callable[[int], str]


@dataclass(frozen=True)
class DefaultBranch:
    """The default branch's tip in the app's mirror, and its config."""

    mirror: Path
    commit: str
    config: Config


def _fetch_branch(mirror: Path, key: ApiKey, token: str) -> str:
    ref = f"refs/remotes/origin/{key.default_branch}"
    if not (mirror / "HEAD").exists():
        mirror.mkdir(parents=True, exist_ok=True)
        run_git(mirror, "init", "--bare", "--quiet")
    argv = git_argv(
        mirror,
        ("fetch", "--quiet", "--no-tags", "--", key.clone_url, f"+refs/heads/{key.default_branch}:{ref}"),
    )
    proc = subprocess.run(
        argv, env=credential_env(token), capture_output=True, timeout=FETCH_TIMEOUT_S, check=False
    )
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [
            f"exit {proc.returncode}"
        ]
        raise GitError(
            f"git fetch of {key.default_branch!r} from {key.repo} failed: {detail[0].replace(token, '***')}"
        )
    return run_git(mirror, "rev-parse", "--verify", f"{ref}^{{commit}}").strip()


def _config_at(mirror: Path, commit: str) -> Config:
    """proctor.toml at `commit`, else pyproject.toml's [tool.proctor], else the defaults (no task)."""
    for name, pyproject in ((CONFIG_FILE, False), (PYPROJECT_FILE, True)):
        try:
            raw = run_git_bytes(mirror, "cat-file", "blob", f"{commit}:{name}")
        except GitError:
            continue
        text = raw.decode("utf-8", "replace")
        if pyproject and "[tool.proctor" not in text:
            continue
        return parse_config_text(text, f"{name} at {commit[:12]}", pyproject=pyproject)
    return Config()


def read_default_branch(data_dir: Path, key: ApiKey, token: str) -> DefaultBranch:
    """Fetch the default branch and read its config (ConfigError when it is invalid)."""
    mirror = mirror_dir(data_dir, key.repo)
    commit = _fetch_branch(mirror, key, token)
    return DefaultBranch(mirror, commit, _config_at(mirror, commit))


class TaskConfigs:
    """The default branch's config per repository, read at most every `CACHE_S` seconds."""

    def __init__(self, data_dir: Path, token_for: TokenFor) -> None:
        self.data_dir, self.token_for = data_dir, token_for
        self._cache: dict[str, tuple[float, Config]] = {}
        self._lock = threading.Lock()  # one fetch per repository at a time; not the threshold's guard

    def config(self, key: ApiKey) -> Config:
        with self._lock:
            cached = self._cache.get(key.repo)
            if cached is not None and time.monotonic() - cached[0] < CACHE_S:
                return cached[1]
            branch = read_default_branch(self.data_dir, key, self.token_for(key.installation_id))
            self._cache[key.repo] = (time.monotonic(), branch.config)
            return branch.config
