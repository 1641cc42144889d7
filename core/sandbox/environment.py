"""The evaluator's environment: an allow-list of Proctor's variables, HOME and TMPDIR in the run's scratch dir,
the hermetic PYTHON* variables and a bytecode prefix that never reads a planted `.pyc` (SPEC §4.3, IN005).

An allow-list, so a new secret-bearing variable (GITHUB_TOKEN, OPENAI_API_KEY, AWS_*, ...) can never leak
into a candidate's process.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from core.sandbox.argv import DEFAULT_PATH, proctor_interpreter
from core.sandbox.bytecode import prepare_pycache

if TYPE_CHECKING:
    from core.sandbox.model import Interpreter

__all__ = ["scrubbed_env"]

# Copied from Proctor's environment when set; everything else is dropped.
_ALLOWED_ENV = (
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "USER",
    "LOGNAME",
    "SHELL",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


_scratch_lock = threading.Lock()
_process_scratch: list[Path] = []


def _default_scratch() -> Path:
    """A per-process scratch dir for scrubbed_env() callers that do not give one (removed at exit)."""
    with _scratch_lock:
        if not _process_scratch or not _process_scratch[0].is_dir():
            path = Path(tempfile.mkdtemp(prefix="proctor-env-"))
            _process_scratch[:] = [path]
            atexit.register(shutil.rmtree, path, True)
        return _process_scratch[0]


def scrubbed_env(
    extra: Mapping[str, str] | None = None,
    *,
    scratch: Path | None = None,
    pycache: Path | None = None,
    python_dir: str | None = None,
    interpreter: Interpreter | None = None,
) -> dict[str, str]:
    """The evaluator's environment, built from an allow-list (SPEC §4.3) plus `extra`.

    HOME and TMPDIR point into `scratch` (a temp dir; a per-process one when not given) so nothing is read
    from or written to the real home; the bytecode prefix is `pycache` (default: inside `scratch`), which
    an isolated run keeps outside the scratch dir it shares with the candidate, read-only, and which links
    to `interpreter`'s bytecode (default Proctor's). PATH starts with `python_dir` (default that
    interpreter's directory), so a nested `python` is the same one. Of the PYTHON* variables only the four
    that make runs hermetic are set.
    """
    base = scratch if scratch is not None else _default_scratch()
    home, tmp = base / "home", base / "tmp"
    pycache = pycache if pycache is not None else base / "pycache"
    for directory in (home, tmp):
        directory.mkdir(parents=True, exist_ok=True)
    interpreter = interpreter or proctor_interpreter()
    prepare_pycache(pycache, interpreter)
    path_entries = [python_dir or str(Path(interpreter.executable).parent)]
    for entry in os.environ.get("PATH", DEFAULT_PATH).split(os.pathsep):
        if entry and entry not in path_entries:
            path_entries.append(entry)
    env = {name: os.environ[name] for name in _ALLOWED_ENV if name in os.environ}
    env.update({name: value for name, value in os.environ.items() if name.startswith("LC_")})
    env.setdefault("LANG", "C.UTF-8")
    env.setdefault("TERM", "dumb")
    env.update(
        {
            "PATH": os.pathsep.join(path_entries),
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPYCACHEPREFIX": str(pycache),
            "PYTHONNOUSERSITE": "1",
            "PYTHONHASHSEED": "0",
        }
    )
    if extra:
        env.update(extra)
    return env
