"""Where Proctor keeps what it writes for a repository: `.proctor/` at its root, or `PROCTOR_STATE_DIR`.

Campaign checkpoints, scoreboards, reports, the judge cache and (when the state is moved) the Kapso experiment
history all live under one directory. A read-only checkout (a CI cache, a mounted volume, someone else's clone)
cannot hold it, so the campaign checks before it measures anything and says how to point it elsewhere.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from core.errors import StateDirError

ENV = "PROCTOR_STATE_DIR"
DEFAULT_DIR = ".proctor"


def proctor_dir(repo: Path) -> Path:
    """`PROCTOR_STATE_DIR` when set (one directory for every repository), else `<repo>/.proctor`."""
    override = os.environ.get(ENV, "").strip()
    return Path(override).expanduser().resolve() if override else Path(repo) / DEFAULT_DIR


def history_file(repo: Path) -> Path:
    """Kapso's `.kapso/experiment_history.json` in the repository; inside the state dir when it is moved."""
    if os.environ.get(ENV, "").strip():
        return proctor_dir(repo) / "experiment_history.json"
    return Path(repo) / ".kapso" / "experiment_history.json"


def use_state_dir(path: Path | None) -> None:
    """Apply a `--state-dir` option for this process (and the workers it starts)."""
    if path is not None:
        os.environ[ENV] = str(Path(path).expanduser().resolve())


def ensure_writable(repo: Path) -> Path:
    """Create the state dir (and the history file's) and prove a file can be written there; else one line
    saying where state goes and how to move it."""
    target = proctor_dir(repo)
    for directory in dict.fromkeys((target, history_file(repo).parent)):
        try:
            directory.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=directory, prefix=".proctor-write-test-"):
                pass
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise StateDirError(
                f"cannot write Proctor's state to {directory} ({reason}): point it at a writable directory "
                f"with --state-dir DIR or {ENV}=DIR",
                path=directory,
            ) from None
    return target
