"""Sandbox levels, the scrubbed environment and resource limits for evaluator runs (SPEC §4.3).

`process`: own session/process group, rlimits, wall-clock kill of the whole group, capped output (the last
three live in core/runner.py). `namespace`: the same inside a private network namespace (`unshare -rn`, or
bubblewrap), so the evaluator has no network at all. `auto` probes once per process which of these works.

The environment is built from an allow-list. PYTHONPYCACHEPREFIX points at a fresh per-run directory so a
bytecode file planted in the workspace's `__pycache__/` is never read (IN005); to keep runs fast, that
directory exposes a read-through mirror of the *interpreter's own* bytecode (stdlib and site-packages, never a
workspace path), built once per interpreter and reused.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.errors import RunnerError

__all__ = [
    "SandboxChoice",
    "SandboxLevel",
    "choose_sandbox",
    "namespace_prefix",
    "rlimits_preexec",
    "scrubbed_env",
]

SandboxLevel = Literal["auto", "process", "namespace"]

_PROBE_TIMEOUT_S = 10.0
_OPEN_FILES_LIMIT = 4096
_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
_BYTECODE_TAG = sys.implementation.cache_tag or "cpython"

# Copied from Proctor's environment when set; everything else is dropped. An allow-list, so a new
# secret-bearing variable (GITHUB_TOKEN, OPENAI_API_KEY, AWS_*, ...) can never leak into a candidate's process.
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


@dataclass(frozen=True)
class SandboxChoice:
    """The isolation a run actually got: level `process|namespace`, mechanism `none|unshare|bwrap`, and why."""

    level: str
    mechanism: str
    reason: str

    def describe(self) -> str:
        if self.mechanism == "none":
            return f"{self.level} ({self.reason})"
        return f"{self.level} via {self.mechanism} ({self.reason})"


# --------------------------------------------------------------------------------------------- level probe

_probe_lock = threading.Lock()
_probe_cache: dict[str, SandboxChoice | str] = {}


def choose_sandbox(requested: SandboxLevel) -> SandboxChoice:
    """The sandbox for `requested`: `auto` = the strongest that works here (probed once per process).

    Asking for `namespace` where no mechanism works raises RunnerError naming what was tried and why it failed.
    """
    if requested == "process":
        return SandboxChoice("process", "none", "requested")
    if requested not in ("auto", "namespace"):
        raise RunnerError(f"unknown sandbox level {requested!r}: expected auto, process or namespace")
    found = _namespace_probe()
    if isinstance(found, SandboxChoice):
        if requested == "auto":
            return SandboxChoice(found.level, found.mechanism, f"auto: {found.reason}")
        return found
    if requested == "namespace":
        raise RunnerError(
            f"sandbox 'namespace' is not available on this machine ({found}); use 'process' or 'auto'"
        )
    return SandboxChoice("process", "none", f"auto: no network namespace available ({found})")


def _namespace_probe() -> SandboxChoice | str:
    with _probe_lock:
        if "result" not in _probe_cache:
            _probe_cache["result"] = _probe_uncached()
        return _probe_cache["result"]


def reset_probe_cache() -> None:
    """Forget the probe so the next choose_sandbox probes again (tests; a machine whose setup changed)."""
    with _probe_lock:
        _probe_cache.clear()


def _probe_uncached() -> SandboxChoice | str:
    """Try each mechanism for real: it must start a process whose network namespace differs from ours."""
    try:
        ours = os.readlink("/proc/self/ns/net")
    except OSError as exc:
        return f"cannot read /proc/self/ns/net: {exc.strerror}"
    failures = []
    for mechanism in ("unshare", "bwrap"):
        program = shutil.which(mechanism)
        if program is None:
            failures.append(f"{mechanism}: not installed")
            continue
        argv = [*namespace_prefix(mechanism, program), "readlink", "/proc/self/ns/net"]
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=_PROBE_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
                env={"PATH": os.environ.get("PATH", _DEFAULT_PATH), "LANG": "C"},
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            failures.append(f"{mechanism}: {exc}")
            continue
        theirs = done.stdout.strip()
        if done.returncode != 0:
            reason = _last_line(done.stderr) or "no output"
            failures.append(f"{mechanism}: exit {done.returncode}: {reason}")
        elif not theirs.startswith("net:") or theirs == ours:
            failures.append(f"{mechanism}: did not create a new network namespace")
        else:
            how = "`unshare -rn`" if mechanism == "unshare" else "`bwrap --unshare-net`"
            return SandboxChoice("namespace", mechanism, f"{how} works here: no network")
    return "; ".join(failures)


def namespace_prefix(mechanism: str, program: str) -> list[str]:
    """The argv prefix that runs a command in a fresh user + network namespace."""
    if mechanism == "unshare":
        # -r maps our uid to root in a new user namespace, which lets an unprivileged user create -n.
        return [program, "-rn", "--"]
    if mechanism == "bwrap":
        return [program, "--unshare-net", "--dev-bind", "/", "/", "--die-with-parent", "--"]
    raise RunnerError(f"unknown sandbox mechanism {mechanism!r}: expected unshare or bwrap")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


# --------------------------------------------------------------------------------------------- environment

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


def scrubbed_env(extra: Mapping[str, str] | None = None, *, scratch: Path | None = None) -> dict[str, str]:
    """The evaluator's environment, built from an allow-list (SPEC §4.3) plus `extra`.

    HOME and TMPDIR point into `scratch` (a temp dir; a per-process one when not given) so nothing is read
    from or written to the real home. PATH starts with the directory of Proctor's interpreter so a nested
    `python` is the same one. Of the PYTHON* variables only the four that make runs hermetic are set.
    """
    base = scratch if scratch is not None else _default_scratch()
    home, tmp, pycache = base / "home", base / "tmp", base / "pycache"
    for directory in (home, tmp):
        directory.mkdir(parents=True, exist_ok=True)
    _prepare_pycache(pycache)
    path_entries = [str(Path(sys.executable).parent)]
    for entry in os.environ.get("PATH", _DEFAULT_PATH).split(os.pathsep):
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


# --------------------------------------------------------------------------------------------- bytecode mirror

_mirror_lock = threading.Lock()
_mirror_cache: dict[str, Path | None] = {}


def _prepare_pycache(pycache: Path) -> None:
    """Make `pycache` a fresh prefix dir whose top-level entries link into the interpreter's bytecode mirror.

    Python looks up `<prefix>/<absolute source dir>/<name>.<tag>.pyc`; linking only the mirror's top-level
    directories means interpreter modules load their bytecode while every workspace path finds nothing.
    """
    pycache.mkdir(parents=True, exist_ok=True)
    mirror = _bytecode_mirror()
    if mirror is None:
        return
    for entry in os.scandir(mirror):
        if entry.is_dir(follow_symlinks=False):
            link = pycache / entry.name
            if not link.exists():
                with contextlib.suppress(OSError):
                    os.symlink(entry.path, link)


def _interpreter_dirs() -> list[str]:
    """The interpreter's own import directories (stdlib, lib-dynload, site-packages), never a workspace."""
    prefixes = {
        os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    }
    dirs = []
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        # Python names bytecode after the path as found on sys.path, so mirror that spelling, not realpath.
        real, spelled = os.path.realpath(entry), os.path.abspath(entry)
        if any(real == p or real.startswith(p + os.sep) for p in prefixes) and spelled not in dirs:
            dirs.append(spelled)
    return dirs


def _bytecode_mirror() -> Path | None:
    """A cache dir mirroring the interpreter's `__pycache__` files in PYTHONPYCACHEPREFIX layout (symlinks).

    Keyed by the interpreter and the directories' modification times, so installing a package builds a new
    one. Built once per machine (a few seconds for a large venv), then reused by every run and process.
    """
    with _mirror_lock:
        if "mirror" in _mirror_cache:
            return _mirror_cache["mirror"]
        dirs = _interpreter_dirs()
        interpreter = hashlib.sha256(repr((sys.executable, sys.version)).encode()).hexdigest()[:12]
        state = hashlib.sha256(repr([(d, os.stat(d).st_mtime_ns) for d in dirs]).encode()).hexdigest()[:12]
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "proctor" / "pycache"
        target = root / f"{interpreter}-{state}"
        result: Path | None = target
        if not (target / ".complete").is_file():
            try:
                _build_mirror(target, dirs)
            except OSError:
                result = None  # no writable cache: runs still work, they just compile from source
        _mirror_cache["mirror"] = result
        return result


def _build_mirror(target: Path, dirs: list[str]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        suffix = f".{_BYTECODE_TAG}.pyc"
        for top in dirs:
            for current, subdirs, files in os.walk(top):
                if os.path.basename(current) != "__pycache__":
                    continue
                subdirs.clear()
                wanted = [name for name in files if name.endswith(suffix) and name.count(".") == 2]
                if not wanted:
                    continue
                source_dir = os.path.dirname(current)
                out = staging / source_dir.lstrip(os.sep)
                out.mkdir(parents=True, exist_ok=True)
                for name in wanted:
                    os.symlink(os.path.join(current, name), out / name)
        (staging / ".complete").write_text("ok\n", encoding="utf-8")
        try:
            os.rename(staging, target)
        except OSError:
            if not (target / ".complete").is_file():
                raise
        interpreter = target.name.split("-")[0]
        for old in target.parent.glob(f"{interpreter}-*"):
            if old != target and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)  # the same interpreter before a package changed
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


# --------------------------------------------------------------------------------------------- rlimits


def rlimits_preexec(timeout_s: float, memory_limit_mb: int | None) -> Callable[[], None]:
    """The preexec hook: only setrlimit calls with values computed here, in the parent, so it is fork-safe.

    CPU time bounds a process that escaped the group; core size 0 keeps dumps (and their secrets) off disk.
    """
    cpu = max(1, math.ceil(timeout_s)) * max(1, os.cpu_count() or 1) + 1
    _soft, nofile_hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    nofile = (
        _OPEN_FILES_LIMIT if nofile_hard == resource.RLIM_INFINITY else min(_OPEN_FILES_LIMIT, nofile_hard)
    )
    settings: list[tuple[int, tuple[int, int]]] = [
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NOFILE, (nofile, nofile)),
        (resource.RLIMIT_CPU, _capped(resource.RLIMIT_CPU, cpu, cpu + 5)),
    ]
    if memory_limit_mb is not None:
        size = memory_limit_mb * 1024 * 1024
        settings.append((resource.RLIMIT_AS, _capped(resource.RLIMIT_AS, size, size)))

    def apply() -> None:
        for which, pair in settings:
            resource.setrlimit(which, pair)

    return apply


def _capped(which: int, soft: int, hard: int) -> tuple[int, int]:
    """Never ask for more than the current hard limit (that would fail in the child)."""
    _cur_soft, cur_hard = resource.getrlimit(which)
    if cur_hard != resource.RLIM_INFINITY:
        hard = min(hard, cur_hard)
        soft = min(soft, hard)
    return soft, hard
