"""Sandbox levels, the scrubbed environment and resource limits for evaluator runs (SPEC §4.3).

`process`: own session/process group, rlimits, wall-clock kill of the whole group, capped output (the last
three live in core/runner.py). `namespace`: the same inside private user, network, pid and IPC namespaces,
with the whole filesystem read-only except the run's working directory, its scratch dir (HOME, TMPDIR, the
bytecode prefix) and a private /tmp — so a hostile candidate can neither reach the network nor leave
anything behind for the next run (a patched site-packages, a planted hook in a `.git/config`, a daemon).
bubblewrap does this directly; without it `unshare` starts a tiny init (core/run/mount_init.py) that builds
the same view and drops every capability before it forks the evaluator. What each sandbox sees — the
evaluator's and, per run of the entry point, the candidate's (SPEC §4.5) — is a core.run.mounts plan built in
core/run/isolation.py. When only the network part works, the choice says so. `auto` probes once per process
which of these really works here and picks the strongest; `PROCTOR_SANDBOX_BACKEND` limits it to one.

The environment is built from an allow-list. PYTHONPYCACHEPREFIX points at a fresh per-run directory so a
bytecode file planted in the workspace's `__pycache__/` is never read (IN005); to keep runs fast, that
directory exposes a read-through mirror of the *interpreter's own* bytecode (stdlib and site-packages, never a
workspace path), built once per interpreter and reused. An isolated run keeps it outside the scratch dir it
shares with the candidate, read-only in both sandboxes, so no bytecode can be planted there either.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import hashlib
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.errors import RunnerError
from core.run.mounts import Mount, MountPlan, PlainView, namespace_argv
from core.run.python_probe import editable_paths

__all__ = [
    "READ_ONLY_REASON",
    "Interpreter",
    "SandboxChoice",
    "SandboxLevel",
    "bytecode_mirror",
    "choose_sandbox",
    "interpreter_mounts",
    "namespace_prefix",
    "proctor_interpreter",
    "rlimits_preexec",
    "sandbox_argv",
    "scrubbed_env",
]

SandboxLevel = Literal["auto", "process", "namespace"]

READ_ONLY_REASON = "no network, read-only filesystem outside the workspace"
"""What a full `namespace` run gets, in the words describe() shows."""

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
    """The isolation a run actually got: level `process|namespace`, mechanism `none|unshare|bwrap`, and why.

    `read_only_fs` (namespace only) says whether everything outside the workspace, the scratch dir and a
    private /tmp is read-only; it is False only where the probe found that just the network part works.
    """

    level: str
    mechanism: str
    reason: str
    read_only_fs: bool = True

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
            return dataclasses.replace(found, reason=f"auto: {found.reason}")
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


BACKEND_ENV = "PROCTOR_SANDBOX_BACKEND"
"""Set to `bwrap` or `unshare` to probe only that mechanism (CI runs the sandbox tests under both)."""
_VARIANTS = (("bwrap", True), ("unshare", True), ("unshare", False))


def _probe_uncached() -> SandboxChoice | str:
    """Try each variant for real, strongest first (only `$PROCTOR_SANDBOX_BACKEND`'s when set); the first
    that passes _probe_variant wins."""
    try:
        ours = os.readlink("/proc/self/ns/net")
    except OSError as exc:
        return f"cannot read /proc/self/ns/net: {exc.strerror}"
    failures: dict[str, str] = {}
    forced = os.environ.get(BACKEND_ENV, "").strip()
    variants = [v for v in _VARIANTS if not forced or v[0] == forced]
    if not variants:
        return f"{BACKEND_ENV}={forced!r} names no sandbox mechanism (expected bwrap or unshare)"
    for mechanism, read_only in variants:
        if shutil.which(mechanism) is None:
            failures[mechanism] = "not installed"
            continue
        reason = READ_ONLY_REASON
        if not read_only:
            why = failures.get(mechanism, "not tried")
            reason = f"no network, but the filesystem stays writable: read-only mounts fail here ({why})"
        choice = SandboxChoice("namespace", mechanism, reason, read_only_fs=read_only)
        problem = _probe_variant(choice, ours)
        if problem is None:
            return choice
        key = mechanism if read_only else f"{mechanism} (network only)"
        failures[key] = problem
    return "; ".join(f"{name}: {problem}" for name, problem in failures.items())


# `echo >`, not `: >`: a failed redirection on a special builtin would end the shell.
_PROBE_SCRIPT = (
    'readlink /proc/self/ns/net; echo > inside && echo > "$TMPDIR/tmpfile" && echo writable; '
    'echo > "$1/escaped" 2>/dev/null; exit 0'
)


def _probe_variant(choice: SandboxChoice, ours: str) -> str | None:
    """None when `choice` really works: a new network namespace, cwd and TMPDIR writable, and — for a
    read-only variant — a write to a directory outside the run (not under /tmp) does not land."""
    root = Path(tempfile.mkdtemp(prefix="proctor-probe-"))
    outside = _outside_probe_dir(root)
    try:
        cwd, scratch = root / "work", root / "scratch"
        for directory in (cwd, scratch / "tmp"):
            directory.mkdir(parents=True)
        sh = shutil.which("sh") or "/bin/sh"
        env = {"PATH": os.environ.get("PATH", _DEFAULT_PATH), "LANG": "C", "TMPDIR": str(scratch / "tmp")}
        try:
            argv = sandbox_argv(
                choice, [sh, "-c", _PROBE_SCRIPT, "sh", str(outside)], cwd=cwd, scratch=scratch
            )
            done = subprocess.run(
                argv,
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=_PROBE_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
                env=env,
                check=False,
            )
        except (OSError, subprocess.SubprocessError, RunnerError) as exc:
            return str(exc)
        lines = done.stdout.split()
        if done.returncode != 0:
            return f"exit {done.returncode}: {_last_line(done.stderr) or 'no output'}"
        if not lines or not lines[0].startswith("net:") or lines[0] == ours:
            return "did not create a new network namespace"
        if "writable" not in lines or not (cwd / "inside").is_file():
            return "the working directory or TMPDIR was not writable inside"
        if choice.read_only_fs and (outside / "escaped").exists():
            return "a write outside the workspace went through"
        return None
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(outside, ignore_errors=True)


def _outside_probe_dir(fallback_parent: Path) -> Path:
    """A directory the probe tries to write into from inside: in Proctor's cache, so not under /tmp (which
    the sandbox replaces anyway), falling back to one under /tmp when the cache is not writable."""
    try:
        parent = _cache_root()
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="probe-", dir=parent))
    except OSError:
        path = fallback_parent / "outside"
        path.mkdir()
        return path


def _cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "proctor"


def namespace_prefix(mechanism: str, program: str) -> list[str]:
    """The argv prefix that runs a command in a fresh user + network namespace (network isolation only)."""
    if mechanism == "unshare":
        # -r maps our uid to root in a new user namespace, which lets an unprivileged user create -n.
        return [program, "-rn", "--"]
    if mechanism == "bwrap":
        return [program, "--unshare-net", "--dev-bind", "/", "/", "--die-with-parent", "--"]
    raise RunnerError(f"unknown sandbox mechanism {mechanism!r}: expected unshare or bwrap")


def sandbox_argv(
    choice: SandboxChoice,
    argv: Sequence[str],
    *,
    cwd: Path,
    scratch: Path,
    plan: MountPlan | None = None,
    interpreter: Interpreter | None = None,
    view: PlainView | None = None,
) -> list[str]:
    """The full argv that runs `argv` under `choice`: under `plan` when given, else with `cwd` and
    `scratch` the only writable paths and `view`'s hidden and extra paths (a plain run: the probe, a
    generator, an evaluator without isolation).

    The interpreter's own prefix stays read-only even when it lies inside cwd (a venv in the workspace), so
    site-packages can never be patched for the next run.
    """
    if choice.level != "namespace":
        return list(argv)
    if not choice.read_only_fs:
        program = shutil.which(choice.mechanism)
        if program is None:
            raise RunnerError(f"sandbox mechanism {choice.mechanism!r} is not installed")
        return [*namespace_prefix(choice.mechanism, program), *argv]
    if plan is None:
        writable = [os.path.realpath(cwd), os.path.realpath(scratch)]
        mounts = [Mount("rw", path) for path in writable]
        mounts += interpreter_mounts(interpreter or proctor_interpreter(), writable)
        view = view or PlainView()
        plan = MountPlan(chdir=writable[0], mounts=(*mounts, *view.mounts()), network=view.network)
    return namespace_argv(choice.mechanism, plan, argv)


_PRIVATE_MOUNTS = ("/tmp", "/dev/shm")


@dataclass(frozen=True)
class Interpreter:
    """The Python that runs the evaluator (and, through the stub, the candidate): the one place the sandbox
    learns which program `python` is and which directories it needs, bound read-only wherever it runs."""

    executable: str
    read_only_dirs: tuple[str, ...]


@functools.cache
def proctor_interpreter() -> Interpreter:
    """Proctor's own interpreter and its prefixes (the venv and the Python it was made from)."""
    paths = {
        os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    }
    # Only the prefixes (a bind of one shows its lib/ and site-packages): sys.path may also hold the
    # directory Proctor was started from, a workspace the candidate must not see. An editable install's
    # package directories (Proctor's own checkout, maybe under /tmp) are bound, never the checkout.
    paths |= {os.path.realpath(p) for p in editable_paths()}
    outer = sorted(p for p in paths if not any(p.startswith(q + os.sep) for q in paths if q != p))
    return Interpreter(sys.executable, tuple(outer))


def interpreter_mounts(
    interpreter: Interpreter, writable: Sequence[str], *, all_dirs: bool = False
) -> list[Mount]:
    """Read-only binds of the interpreter's directories: all of them (`all_dirs`, an empty-root sandbox),
    else only those a writable bind or the private /tmp would cover (a venv inside the workspace stays
    unpatchable, a venv under /tmp stays visible)."""
    roots = [*writable, *_PRIVATE_MOUNTS]
    chosen = [
        p
        for p in interpreter.read_only_dirs
        if p not in writable and (all_dirs or any(p.startswith(r.rstrip(os.sep) + os.sep) for r in roots))
    ]
    return [Mount("ro", p) for p in chosen]


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


def scrubbed_env(
    extra: Mapping[str, str] | None = None,
    *,
    scratch: Path | None = None,
    pycache: Path | None = None,
    python_dir: str | None = None,
) -> dict[str, str]:
    """The evaluator's environment, built from an allow-list (SPEC §4.3) plus `extra`.

    HOME and TMPDIR point into `scratch` (a temp dir; a per-process one when not given) so nothing is read
    from or written to the real home; the bytecode prefix is `pycache` (default: inside `scratch`), which
    an isolated run keeps outside the scratch dir it shares with the candidate, read-only. PATH starts with
    `python_dir`, the evaluator's interpreter's directory (default Proctor's), so a nested `python` is the
    same one. Of the PYTHON* variables only the four that make runs hermetic are set.
    """
    base = scratch if scratch is not None else _default_scratch()
    home, tmp = base / "home", base / "tmp"
    pycache = pycache if pycache is not None else base / "pycache"
    for directory in (home, tmp):
        directory.mkdir(parents=True, exist_ok=True)
    _prepare_pycache(pycache)
    path_entries = [python_dir or str(Path(sys.executable).parent)]
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

_MIRROR_GRACE_S = 24 * 3600
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
    try:
        entries = list(os.scandir(mirror))
    except FileNotFoundError:
        # Another process replaced the mirror after a package change: look it up again, once.
        with _mirror_lock:
            _mirror_cache.clear()
        mirror = _bytecode_mirror()
        entries = list(os.scandir(mirror)) if mirror is not None and mirror.is_dir() else []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            link = pycache / entry.name
            if not link.exists():
                with contextlib.suppress(OSError):
                    os.symlink(entry.path, link)


def bytecode_mirror() -> Path | None:
    """The interpreter's bytecode mirror the prefix dirs link into (None without a writable cache)."""
    return _bytecode_mirror()


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
        root = _cache_root() / "pycache"
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
        stale_before = time.time() - _MIRROR_GRACE_S
        for old in target.parent.glob(f"{interpreter}-*"):
            # The same interpreter before a package changed; a running process may still use a recent one.
            with contextlib.suppress(OSError):
                if old != target and old.is_dir() and old.stat().st_mtime < stale_before:
                    shutil.rmtree(old, ignore_errors=True)
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
