"""Which sandbox works on this machine: `auto` probes once per process and picks the strongest (SPEC §4.3).

`namespace` through bubblewrap, else `unshare` with core/run/mount_init.py building the same view; when
only the network part works, the choice says so. `PROCTOR_SANDBOX_BACKEND` limits the probe to one
mechanism (CI runs the sandbox tests under both). Each variant is tried for real: a new network namespace,
a writable working directory and TMPDIR, and — for a read-only variant — a write outside that does not land.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from core.errors import RunnerError
from core.sandbox.argv import DEFAULT_PATH, sandbox_argv
from core.sandbox.bytecode import cache_root
from core.sandbox.model import SandboxChoice, SandboxLevel

__all__ = [
    "BACKEND_ENV",
    "READ_ONLY_REASON",
    "choose_sandbox",
    "reset_probe_cache",
]


READ_ONLY_REASON = "no network, read-only filesystem outside the workspace"
"""What a full `namespace` run gets, in the words describe() shows."""

_PROBE_TIMEOUT_S = 10.0


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
        env = {"PATH": os.environ.get("PATH", DEFAULT_PATH), "LANG": "C", "TMPDIR": str(scratch / "tmp")}
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
        parent = cache_root()
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="probe-", dir=parent))
    except OSError:
        path = fallback_parent / "outside"
        path.mkdir()
        return path


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""
