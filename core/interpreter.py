"""Which Python runs the evaluator: the project's own, found the way people expect, and its identity.

An evaluator imports the project's dependencies (scikit-learn, torch), which live in the project's
environment, not Proctor's. So by default it runs on `.venv/` or `venv/` at the root of the repository being
measured (the user's tree, never the materialized copy), else the active `VIRTUAL_ENV`, else `CONDA_PREFIX`,
else `python3` on the user's PATH; config `python` names one (a path or a name on PATH), and
`python = "proctor"` asks for Proctor's own. The interpreter is asked once, outside any sandbox, with a small
stdlib script: that resolves pyenv/asdf shims to the real program (a shim under the sandbox's scrubbed HOME is
slow or fails), gives the prefixes and import directories the sandbox must bind read-only, and an environment
identity (version + a hash of the installed distributions) that reports record and `--resume` compares.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import ConfigError, InterpreterError
from core.sandbox import Interpreter
from core.sandbox.bytecode import bytecode_dirs

PROCTOR = "proctor"
PROBE_TIMEOUT_S = 60.0
_VENV_DIRS = (".venv", "venv")

# Run with -I (no PYTHON* variables, no user site, no cwd on sys.path) so nothing of the workspace is imported.
_PROBE_FILE = Path(__file__).resolve().parent / "run" / "python_probe.py"


@dataclass(frozen=True)
class ProjectPython:
    """The evaluator's interpreter: where it was found, what it is, and what the sandbox must show of it."""

    executable: str
    version: str
    source: str
    requested: str
    prefixes: tuple[str, ...]
    import_dirs: tuple[str, ...]
    environment_id: str
    cache_tag: str = ""
    bytecode_dirs: tuple[str, ...] = ()
    """Its sys.path inside its prefixes as it spells them: the bytecode the sandbox mirrors for it."""

    def sandbox_interpreter(self) -> Interpreter:
        """The sandbox's view: the program and every directory it needs, to be bound read-only.

        The program is named through its directory's real path: a `.venv` that is a symlink to a venv
        elsewhere is not in either sandbox (the workspace is not in C, and under /tmp not in E), the venv
        it points to is. The program itself stays the venv's `bin/python`, so Python still finds the venv.
        """
        folder, name = os.path.split(self.executable)
        program = os.path.join(os.path.realpath(folder), name)
        dirs = _outermost((*self.prefixes, *self.import_dirs))
        return Interpreter(program, dirs, self.cache_tag, self.bytecode_dirs)

    def describe(self) -> str:
        return f"{self.executable} (Python {self.version}, {self.source}; environment {self.environment_id[:12]})"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.executable,
            "version": self.version,
            "source": self.source,
            "environment_id": self.environment_id,
        }


def find_python(setting: str, root: Path | None, environ: Mapping[str, str] | None = None) -> ProjectPython:
    """The interpreter for config `python` = `setting` in the repository whose working tree is `root`
    (None: a bare repository, no `.venv` to look at). Raises InterpreterError / ConfigError with one line."""
    env = os.environ if environ is None else environ
    program, source = _choose(setting.strip(), root, env)
    return _probe(program, source, root, env)


def _choose(setting: str, root: Path | None, env: Mapping[str, str]) -> tuple[str, str]:
    """(program, where it came from): the configured `python`, else the first one found."""
    if setting == PROCTOR:
        return sys.executable, 'python = "proctor" (Proctor\'s own)'
    return _configured(setting, root, env) if setting else _found(root, env)


def _configured(setting: str, root: Path | None, env: Mapping[str, str]) -> tuple[str, str]:
    """`python = ...` in proctor.toml: a path (relative to the repository root) or a name on PATH."""
    if os.sep in setting or setting.startswith("."):
        path = Path(setting).expanduser()
        path = path if path.is_absolute() or root is None else root / path
        if not path.exists():
            raise ConfigError("proctor.toml", 0, "python", f"{setting!r}: {path} does not exist")
        return str(path), f"python = {setting!r} in proctor.toml"
    found = shutil.which(setting, path=env.get("PATH"))
    if found is None:
        raise ConfigError("proctor.toml", 0, "python", f"{setting!r} is not on PATH")
    return found, f"python = {setting!r} in proctor.toml"


def _found(root: Path | None, env: Mapping[str, str]) -> tuple[str, str]:
    """No setting: a venv at the repository root, the active venv or conda env, else python3 on PATH."""
    for name in _VENV_DIRS if root is not None else ():
        assert root is not None
        candidate = root / name / "bin" / "python"
        if candidate.exists():
            return str(candidate), f"{name}/ at the repository root"
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        prefix = env.get(variable, "").strip()
        if prefix and (Path(prefix) / "bin" / "python").exists():
            return str(Path(prefix) / "bin" / "python"), f"${variable}"
    found = shutil.which("python3", path=env.get("PATH"))
    if found is None:
        raise InterpreterError(
            "no Python found for the evaluator: no .venv/ or venv/ at the repository root, no VIRTUAL_ENV or "
            'CONDA_PREFIX, no python3 on PATH; set python = "/path/to/python" in proctor.toml'
        )
    return found, "python3 on PATH"


_cache: dict[tuple[str, float, str], tuple[ProjectPython, tuple[tuple[str, float], ...]]] = {}
_cache_lock = threading.Lock()


def _probe(program: str, source: str, root: Path | None, env: Mapping[str, str]) -> ProjectPython:
    """Ask `program` once (cached per path, mtime and working directory while its import dirs are unchanged)."""
    cwd = str(root) if root is not None and root.is_dir() else os.getcwd()
    try:
        key = (os.path.abspath(program), os.stat(program).st_mtime, cwd)
    except OSError as exc:
        raise InterpreterError(
            f"the evaluator's Python {program} cannot be used: {exc.strerror}", program=program
        ) from None
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None and all(_mtime(d) == t for d, t in hit[1]):
        return _with_source(hit[0], source, program)
    data = _ask(program, cwd, env)
    found = _from_probe(data, source, program, root)
    stamps = tuple((d, _mtime(d)) for d in found.import_dirs)
    with _cache_lock:
        _cache[key] = (found, stamps)
    return found


def _with_source(found: ProjectPython, source: str, program: str) -> ProjectPython:
    from dataclasses import replace

    return replace(found, source=source, requested=program)


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0


def _ask(program: str, cwd: str, env: Mapping[str, str]) -> dict[str, Any]:
    # The user's environment (pyenv/asdf read PYENV_VERSION, HOME, .python-version in cwd) minus PYTHON*.
    clean = {k: v for k, v in env.items() if not k.startswith("PYTHON")}
    try:
        done = subprocess.run(
            [program, "-I", "-c", _PROBE_FILE.read_text(encoding="utf-8")],
            cwd=cwd,
            env=clean,
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InterpreterError(
            f"the evaluator's Python {program} did not answer within {PROBE_TIMEOUT_S:.0f} s", program=program
        ) from None
    except OSError as exc:
        raise InterpreterError(
            f"the evaluator's Python {program} cannot run: {exc.strerror or exc}", program=program
        ) from None
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        data = json.loads(lines[-1])
        assert isinstance(data, dict) and isinstance(data.get("executable"), str)
    except (IndexError, ValueError, AssertionError):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = tail[-1] if tail else f"exit {done.returncode}"
        raise InterpreterError(
            f"the evaluator's Python {program} is not a working Python 3: {why}", program=program
        ) from None
    return data


def _from_probe(data: dict[str, Any], source: str, program: str, root: Path | None) -> ProjectPython:
    executable = str(data["executable"]) or program
    prefixes = tuple(dict.fromkeys(os.path.realpath(str(p)) for p in data.get("prefixes", []) if p))
    inside = os.path.realpath(root) if root is not None else None
    # Never a workspace path (an editable install of the project): the candidate's copy is what runs.
    # sys.path entries are directories; an editable finder's are package directories or module files,
    # never the checkout around them (under /tmp, a sandbox's private /tmp would hide them otherwise).
    entries: list[tuple[str, Callable[[str], bool]]] = [(str(p), os.path.isdir) for p in data.get("path", [])]
    entries += [(str(p), os.path.exists) for p in data.get("editable", [])]
    dirs = []
    for entry, usable in entries:
        real = os.path.realpath(entry)
        if usable(real) and not (inside is not None and _within(real, inside)):
            dirs.append(real)
    dists = [str(d) for d in data.get("dists", [])]
    version = str(data.get("version", "?"))
    identity = hashlib.sha256(json.dumps([version, dists]).encode("utf-8")).hexdigest()
    path = [str(p) for p in data.get("path", [])]
    bytecode = tuple(d for d in bytecode_dirs(path, set(prefixes)) if not (inside and _within(d, inside)))
    return ProjectPython(
        executable,
        version,
        source,
        program,
        prefixes,
        tuple(dict.fromkeys(dirs)),
        identity,
        cache_tag=str(data.get("cache_tag", "")),
        bytecode_dirs=bytecode,
    )


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _outermost(paths: tuple[str, ...]) -> tuple[str, ...]:
    unique = set(paths)
    return tuple(sorted(p for p in unique if not any(q != p and _within(p, q) for q in unique)))


def proctor_python() -> ProjectPython:
    """Proctor's own interpreter (the bundled demo, and `python = "proctor"`)."""
    return find_python(PROCTOR, None)
