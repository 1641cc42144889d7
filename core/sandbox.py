"""Sandbox levels, the scrubbed environment and resource limits for evaluator runs (SPEC §4.3).

`process`: own session/process group, rlimits, wall-clock kill of the whole group, capped output (the last
three live in core/runner.py). `namespace`: the same inside private user, network, pid and IPC namespaces,
with the whole filesystem read-only except the run's working directory, its scratch dir (HOME, TMPDIR, the
bytecode prefix) and a private /tmp — so a hostile candidate can neither reach the network nor leave
anything behind for the next run (a patched site-packages, a planted hook in a `.git/config`, a daemon).
bubblewrap does this directly; without it `unshare` starts a tiny init (`_mount_init`) that remounts
everything read-only, re-binds the writable paths and drops every capability before exec. When only the
network part works, the choice says so. `auto` probes once per process which of these really works here and
picks the strongest.

The environment is built from an allow-list. PYTHONPYCACHEPREFIX points at a fresh per-run directory so a
bytecode file planted in the workspace's `__pycache__/` is never read (IN005); to keep runs fast, that
directory exposes a read-through mirror of the *interpreter's own* bytecode (stdlib and site-packages, never a
workspace path), built once per interpreter and reused.
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

__all__ = [
    "READ_ONLY_REASON",
    "SandboxChoice",
    "SandboxLevel",
    "choose_sandbox",
    "namespace_prefix",
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


def _probe_uncached() -> SandboxChoice | str:
    """Try each variant for real, strongest first; the first that passes _probe_variant wins."""
    try:
        ours = os.readlink("/proc/self/ns/net")
    except OSError as exc:
        return f"cannot read /proc/self/ns/net: {exc.strerror}"
    failures: dict[str, str] = {}
    for mechanism, read_only in (("bwrap", True), ("unshare", True), ("unshare", False)):
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


def sandbox_argv(choice: SandboxChoice, argv: Sequence[str], *, cwd: Path, scratch: Path) -> list[str]:
    """The full argv that runs `argv` under `choice`, with `cwd` and `scratch` the only writable paths.

    Binds are listed parents first, so a cwd or scratch under /tmp lands on top of the private /tmp, not
    under it. The interpreter's own prefix stays read-only even when it lies inside cwd (a venv in the
    workspace), so site-packages can never be patched for the next run.
    """
    if choice.level != "namespace":
        return list(argv)
    program = shutil.which(choice.mechanism)
    if program is None:
        raise RunnerError(f"sandbox mechanism {choice.mechanism!r} is not installed")
    if not choice.read_only_fs:
        return [*namespace_prefix(choice.mechanism, program), *argv]
    workdir = os.path.realpath(cwd)
    writable = {workdir, os.path.realpath(scratch)}
    read_only = set(_interpreter_paths_hidden_by(writable))
    # Parents first: a deeper bind lands on top of a shallower one (and of the private /tmp).
    ordered = sorted((*((p, True) for p in writable), *((p, False) for p in read_only)), key=_depth_first)
    if choice.mechanism == "bwrap":
        binds = [arg for path, rw in ordered for arg in ("--bind" if rw else "--ro-bind", path, path)]
        return [
            program,
            *("--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session"),
            # Run as root, bwrap keeps every capability (CAP_SYS_ADMIN: remount / read-write) unless told.
            *("--cap-drop", "ALL"),
            *("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc"),
            *("--tmpfs", "/tmp"),
            *binds,
            *("--chdir", workdir, "--"),
            *argv,
        ]
    if choice.mechanism == "unshare":
        spec = ["--chdir", workdir]
        spec += [arg for path, rw in ordered for arg in ("--rw" if rw else "--ro", path)]
        return [
            program,
            *("--user", "--map-root-user", "--net", "--ipc", "--pid", "--fork", "--kill-child"),
            *("--mount-proc", "--"),
            *(sys.executable, "-I", "-S", "-B", "-c", _mount_init_source()),
            *spec,
            "--",
            *argv,
        ]
    raise RunnerError(f"unknown sandbox mechanism {choice.mechanism!r}: expected unshare or bwrap")


_PRIVATE_MOUNTS = ("/tmp", "/dev/shm")


def _depth_first(item: tuple[str, bool]) -> tuple[int, str]:
    return item[0].rstrip(os.sep).count(os.sep), item[0]


def _interpreter_paths_hidden_by(writable: set[str]) -> list[str]:
    """The interpreter's prefixes and import dirs that a writable bind or a private /tmp would cover.

    They are bound back read-only: a venv inside the workspace stays unpatchable, and a venv under /tmp
    (a CI checkout there) stays visible to the evaluator.
    """
    paths = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths |= {os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}
    roots = [*writable, *_PRIVATE_MOUNTS]
    return sorted(
        p for p in paths if p not in writable and any(p.startswith(r.rstrip(os.sep) + os.sep) for r in roots)
    )


@functools.cache
def _mount_init_source() -> str:
    import inspect

    try:
        source = inspect.getsource(_mount_init)
    except (OSError, TypeError) as exc:  # installed without .py sources
        raise RunnerError(f"cannot read the sandbox init's source for `unshare`: {exc}") from None
    return f"{source}\n_mount_init(__import__('sys').argv[1:])\n"


def _mount_init(args: list[str]) -> None:  # pragma: no cover - runs inside the namespace, as its own process
    """The init `unshare` runs: make every mount read-only, put a fresh tmpfs on /tmp and /dev/shm, bind the
    writable paths back, drop every capability, then exec the evaluator.

    Runs as `python -I -S -B -c <this source>` in the new user+mount namespace, so it must be self-contained.
    Without the capability drop the evaluator (root in its namespace) could simply remount / read-write;
    any namespace it creates itself copies these mounts locked. Exit 125 means the sandbox was not built.
    """
    import ctypes
    import errno
    import os

    rdonly, nosuid, nodev, noexec, remount_flag, nosymfollow, bind, rec = 1, 2, 4, 8, 32, 256, 4096, 16384
    st_nosymfollow = 8192
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

    def die(message: str) -> None:
        os.write(2, f"proctor sandbox: {message}\n".encode(errors="replace"))
        os._exit(125)

    def mount(
        source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None
    ) -> int:
        raw = [None if s is None else os.fsencode(s) for s in (source, target, fstype, data)]
        return 0 if libc.mount(raw[0], raw[1], raw[2], flags, raw[3]) == 0 else ctypes.get_errno()

    def remount(path: str, read_only: bool) -> int:
        # Per-mount flags inherited from the parent namespace are locked: pass them back unchanged.
        try:
            have = os.statvfs(path).f_flag
        except OSError as exc:
            return exc.errno or errno.EIO
        keep = (have & (nosuid | nodev | noexec)) | (nosymfollow if have & st_nosymfollow else 0)
        return mount(None, path, None, remount_flag | bind | keep | (rdonly if read_only else 0))

    def mount_points() -> list[str]:
        with open("/proc/self/mountinfo", "rb") as handle:
            raw = [line.split()[4] for line in handle]
        # mountinfo escapes space, tab, newline and backslash as \ooo octal.
        return list(dict.fromkeys(os.fsdecode(p.decode("unicode_escape").encode("latin-1")) for p in raw))

    def under(path: str, roots: list[str]) -> bool:
        return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)

    split = args.index("--")
    options, argv = args[:split], args[split + 1 :]
    workdir, binds = "/", []
    for flag, value in zip(options[::2], options[1::2], strict=True):
        if flag == "--chdir":
            workdir = value
        elif flag in ("--rw", "--ro"):
            binds.append((value, flag == "--rw"))
    writable = [path for path, rw in binds if rw]
    read_only = [path for path, rw in binds if not rw]
    # Held open so a path under /tmp can be bound back after the private tmpfs hides it.
    handles = {}
    for path, rw in binds:
        try:
            handles[path] = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError as exc:
            if rw:
                die(f"cannot open {path}: {exc.strerror}")
    for point in mount_points():
        failed = remount(point, True)
        # Not a mount root any more (hidden under another mount) or not reachable: nothing to protect.
        if failed and failed not in (errno.EINVAL, errno.ENOENT, errno.EACCES):
            die(f"cannot make {point} read-only: {os.strerror(failed)}")
    private = [p for p in ("/tmp", "/dev/shm") if os.path.isdir(p)]
    for point in private:
        failed = mount("tmpfs", point, "tmpfs", nosuid | nodev, "mode=1777")
        if failed:
            die(f"cannot mount a private tmpfs on {point}: {os.strerror(failed)}")
    for path, rw in binds:
        if path not in handles:
            continue
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as exc:
            die(f"cannot create {path}: {exc.strerror}")
        failed = mount(f"/proc/self/fd/{handles[path]}", path, None, bind | rec) or remount(path, not rw)
        if failed:
            die(f"cannot make {path} {'writable' if rw else 'read-only'}: {os.strerror(failed)}")
    for point in [*mount_points(), *read_only]:
        if under(point, writable + private) and not under(point, read_only):
            continue
        try:
            still_writable = not os.statvfs(point).f_flag & rdonly
        except OSError:
            continue
        if still_writable:
            die(f"{point} is still writable")
    with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as handle:
        last_cap = int(handle.read())
    for cap in range(last_cap + 1):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            die(f"cannot drop capability {cap}: {os.strerror(ctypes.get_errno())}")
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL (absent before Linux 4.3)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    if libc.capset(header, (ctypes.c_uint32 * 6)()) != 0:
        die(f"cannot drop capabilities: {os.strerror(ctypes.get_errno())}")
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        die(f"cannot set no_new_privs: {os.strerror(ctypes.get_errno())}")
    for handle_fd in handles.values():
        os.close(handle_fd)
    try:
        os.chdir(workdir)  # the inherited cwd still points at the read-only mount underneath
        os.execvp(argv[0], argv)
    except OSError as exc:
        die(f"cannot start {argv[0]}: {exc.strerror}")


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
