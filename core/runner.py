"""Run an evaluator command safely (SPEC §4.3): the one place Proctor starts untrusted evaluation code.

Every run gets its own session/process group, rlimits (CPU time, open files, core size 0, optional address
space), a wall-clock deadline after which the WHOLE group is SIGKILLed, stdout/stderr read with a selector so
a grandchild that keeps a pipe open cannot hang us, each stream capped at its last 1 MiB, and an environment
built from an allow-list (never tokens or secrets). The `namespace` level adds private user, network, pid and
IPC namespaces and a filesystem that is read-only outside the run's cwd, its scratch dir and a private /tmp
(bubblewrap, or `unshare` plus a tiny init), so the evaluator has no network and cannot leave anything
behind for the next run. With an `isolation` (verify, campaigns) the run gets two sandboxes (SPEC §4.5, see
core/run/): the evaluator's, where the suite and protected inputs are read-only and the entry point is a stub,
and a fresh one for the candidate each time the stub runs it. `auto` probes once per process, picks the strongest level that works here, and
says which.

The sandbox levels, the environment allow-list and the rlimits live in core/sandbox.py and are re-exported
here. Nothing holds process-wide state except the probe cache, so the runner is safe to use from a process
pool (each worker probes once) or from threads.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.errors import RunnerError
from core.run.isolation import Isolation, RunLayout
from core.run.mounts import PlainView
from core.run.session import RunSession
from core.sandbox import (
    Interpreter,
    SandboxChoice,
    SandboxLevel,
    bytecode_mirror,
    choose_sandbox,
    proctor_interpreter,
    reset_probe_cache,
    rlimits_preexec,
    sandbox_argv,
    scrubbed_env,
)
from core.treewalk import remove_tree

__all__ = [
    "OUTPUT_CAP_BYTES",
    "Interpreter",
    "Isolation",
    "RunResult",
    "SandboxChoice",
    "SandboxLevel",
    "build_argv",
    "choose_sandbox",
    "reset_probe_cache",
    "run_evaluator",
    "scrubbed_env",
]

OUTPUT_CAP_BYTES = 1024 * 1024
"""Each stream keeps its last 1 MiB: the end of a log says why a run failed, the start rarely does."""

_DRAIN_GRACE_S = 1.0  # after the main process ends: how long to wait for its pipes to close
_REAPER_GRACE_S = 2.0  # at the deadline: how long the run's leader may take to kill its descendants
_REAPER = str(Path(__file__).resolve().parent / "run" / "reaper.py")
_PYTHON_NAMES = frozenset({"python", "python3", f"python3.{sys.version_info.minor}"})


@dataclass(frozen=True)
class RunResult:
    """One evaluator run. `returncode` is None when the run was killed at the deadline."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float
    stdout_truncated: bool
    stderr_truncated: bool
    sandbox: SandboxChoice
    stdout_valid_utf8: bool = True
    """False when stdout held bytes that are not UTF-8 (`stdout` shows them as U+FFFD)."""
    not_isolated: str | None = None
    """With an `isolation` asked for: "" when every candidate process ran in its own sandbox, else why not."""
    candidate_launches: int = 0

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def failure_reason(self) -> str:
        """One line saying why the run failed ('' when it did not): the exit status and the stderr tail."""
        if self.timed_out:
            head = f"timed out after {self.duration_s:.1f} s (the whole process group was killed)"
        elif self.returncode is not None and self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            head = f"killed by {name}"
        elif self.returncode:
            head = f"exit {self.returncode}"
            if self.sandbox.level == "namespace" and 128 < self.returncode <= 128 + 64:
                # The namespace's init reports a process killed by signal N as exit 128 + N: say so.
                with contextlib.suppress(ValueError):
                    head += f" (killed by {signal.Signals(self.returncode - 128).name} inside the sandbox)"
        else:
            return ""
        tail = last_line(self.stderr) or last_line(self.stdout)
        return f"{head}: {tail}" if tail else f"{head} with no output"


def last_line(text: str, limit: int = 200) -> str:
    """The last non-empty line of `text`, shortened for one-line reports."""
    for line in reversed(text.splitlines()):
        stripped = line.strip()
        if stripped:
            return stripped if len(stripped) <= limit else stripped[: limit - 3] + "..."
    return ""


# --------------------------------------------------------------------------------------------- running


def build_argv(
    command: str, extra_args: Sequence[str] = (), interpreter: Interpreter | None = None
) -> list[str]:
    """Split `command` with shlex; a leading python/python3 becomes the evaluator's interpreter."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise RunnerError(f"cannot parse evaluator command {command!r}: {exc}") from None
    if not argv:
        raise RunnerError("the evaluator command is empty: set `command` in proctor.toml")
    if argv[0] in _PYTHON_NAMES:
        argv[0] = (interpreter or proctor_interpreter()).executable
    return [*argv, *extra_args]


def _resolve_program(program: str, cwd: Path, path: str) -> str:
    """Fail before starting when the program does not exist (the same error for every sandbox level)."""
    if os.sep in program:
        candidate = Path(program) if os.path.isabs(program) else cwd / program
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return program
        raise RunnerError(f"evaluator program {program!r} does not exist or is not executable (in {cwd})")
    found = shutil.which(program, path=path)
    if found is None:
        raise RunnerError(f"evaluator program {program!r} not found on PATH")
    return found


class _Tail:
    """Keeps the last `cap` bytes of a stream without holding more than 2 × cap."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.buffer = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.buffer += chunk
        if len(self.buffer) > 2 * self.cap:
            del self.buffer[: len(self.buffer) - self.cap]

    @property
    def truncated(self) -> bool:
        return self.total > self.cap

    def text(self) -> str:
        return self._data().decode("utf-8", errors="replace")

    def valid_utf8(self) -> bool:
        """Whether the kept bytes decode strictly: a U+FFFD the program printed itself is not an error."""
        try:
            self._data().decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True

    def _data(self) -> bytes:
        data = bytes(self.buffer[-self.cap :]) if self.truncated else bytes(self.buffer)
        if self.truncated:
            # The cut may land inside a UTF-8 sequence: drop its orphaned continuation bytes.
            start = 0
            while start < min(3, len(data)) and 0x80 <= data[start] <= 0xBF:
                start += 1
            data = data[start:]
        return data


def _kill_group(pgid: int) -> None:
    """End a run: SIGTERM its leader first (the `process` level's reaper then kills every descendant, even
    those that left the group), give it a moment, then SIGKILL whatever is left of the group."""
    if not _has_exited(pgid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pgid, signal.SIGTERM)
        give_up = time.monotonic() + _REAPER_GRACE_S
        while not _has_exited(pgid) and time.monotonic() < give_up:
            time.sleep(0.005)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _has_exited(pid: int) -> bool:
    """True once `pid` is a zombie; WNOWAIT leaves it unreaped so its pgid cannot be reused yet."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None and info.si_pid == pid


def _collect(
    proc: subprocess.Popen[bytes], deadline: float, started: float
) -> tuple[_Tail, _Tail, bool, float]:
    """Read both pipes until the process ends (or the deadline), then kill whatever is left of its group.

    Returns (stdout tail, stderr tail, timed_out, duration). Waiting for exit uses a pidfd where the kernel
    has one, so a fast evaluator is not delayed by polling.
    """
    assert proc.stdout is not None and proc.stderr is not None
    tails = {proc.stdout.fileno(): _Tail(OUTPUT_CAP_BYTES), proc.stderr.fileno(): _Tail(OUTPUT_CAP_BYTES)}
    out_tail, err_tail = tails[proc.stdout.fileno()], tails[proc.stderr.fileno()]
    selector = selectors.DefaultSelector()
    pidfd: int | None = None
    try:
        for fd in tails:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ, "pipe")
        with contextlib.suppress(AttributeError, OSError):
            pidfd = os.pidfd_open(proc.pid)
            selector.register(pidfd, selectors.EVENT_READ, "exit")
        exited = False
        timed_out = False
        ended = deadline
        stop_at = deadline
        while True:
            pipes_open = any(key.data == "pipe" for key in selector.get_map().values())
            if exited and not pipes_open:
                break
            now = time.monotonic()
            if now >= stop_at:
                if exited:
                    break  # an escaped process still holds a pipe: stop reading, keep what we have
                timed_out, exited, ended = True, True, now
                _kill_group(proc.pid)
                stop_at = now + _DRAIN_GRACE_S
                continue
            wait = stop_at - now
            if pidfd is None and not exited:
                wait = min(wait, 0.02)
            for key, _mask in selector.select(wait):
                if key.data == "exit":
                    selector.unregister(key.fd)
                    continue
                try:
                    chunk = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if chunk:
                    tails[key.fd].add(chunk)
                else:
                    selector.unregister(key.fd)
            if not exited and _has_exited(proc.pid):
                exited, ended = True, time.monotonic()
                _kill_group(proc.pid)  # leftovers (daemons, grandchildren) die with the run
                stop_at = min(stop_at, ended + _DRAIN_GRACE_S) if not timed_out else stop_at
        return out_tail, err_tail, timed_out, ended - started
    finally:
        selector.close()
        if pidfd is not None:
            os.close(pidfd)


def run_evaluator(
    command: str,
    cwd: Path,
    *,
    timeout_s: float,
    sandbox: SandboxLevel | SandboxChoice = "auto",
    extra_args: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
    memory_limit_mb: int | None = None,
    isolation: Isolation | None = None,
    interpreter: Interpreter | None = None,
    view: PlainView | None = None,
) -> RunResult:
    """Run `command` (plus `extra_args`) in `cwd` under the sandbox; never raises for what the command does.

    Without `isolation`, `view` says what else a namespace run sees (a generator: no workspace, no
    hold-out, the network).

    With `isolation` (verify, campaigns) the run gets both sandboxes of SPEC §4.5: the evaluator's, and one
    fresh candidate sandbox per run of the entry point. RunnerError only when it cannot start at all (bad
    command, missing program, missing cwd, sandbox unavailable). A timeout, a crash or a non-zero exit is
    a RunResult saying so.
    """
    if timeout_s <= 0:
        raise RunnerError(f"timeout_s must be positive, got {timeout_s!r}")
    choice = sandbox if isinstance(sandbox, SandboxChoice) else choose_sandbox(sandbox)
    cwd = Path(cwd)
    if not cwd.is_dir():
        raise RunnerError(f"cannot run the evaluator: directory {str(cwd)!r} does not exist")
    interpreter = interpreter or proctor_interpreter()
    argv = build_argv(command, extra_args, interpreter)
    layout = RunLayout(Path(tempfile.mkdtemp(prefix="proctor-run-")))
    session: RunSession | None = None
    try:
        env = scrubbed_env(extra_env, scratch=layout.scratch, pycache=layout.pycache, interpreter=interpreter)
        argv[0] = _resolve_program(argv[0], cwd, env["PATH"])
        preexec = rlimits_preexec(timeout_s, memory_limit_mb)  # only setrlimit calls: fork-safe
        session = RunSession.open(
            layout,
            cwd,
            choice,
            isolation,
            interpreter,
            deadline=time.monotonic() + timeout_s,
            preexec=preexec,
            mirror=bytecode_mirror(interpreter),
        )
        env.update(session.env)
        full = sandbox_argv(
            choice,
            argv,
            cwd=cwd,
            scratch=layout.scratch,
            plan=session.plan,
            interpreter=interpreter,
            view=_with_pycache(view, layout),
        )
        if choice.level == "process":  # no pid namespace: a subreaper makes every descendant die with the run
            full = [sys.executable, "-I", "-S", _REAPER, *full]
        result = _launch(full, argv, cwd, env, timeout_s, preexec, choice)
        launches = session.service.launches if session.service is not None else 0
        why = session.finish()
        session = None
        return dataclasses.replace(
            result, not_isolated=None if isolation is None else why, candidate_launches=launches
        )
    finally:
        if session is not None:
            session.finish()
        remove_tree(layout.root)  # the run may have left any depth of directories behind


def _with_pycache(view: PlainView | None, layout: RunLayout) -> PlainView:
    """A plain run's view with its bytecode prefix: under the private /tmp it would not be there at all,
    and every module would be compiled from source."""
    view = view or PlainView()
    return dataclasses.replace(view, read_only=(*view.read_only, str(layout.pycache)))


def _launch(
    full: list[str],
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    timeout_s: float,
    preexec: Callable[[], None],
    choice: SandboxChoice,
) -> RunResult:
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            full,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=preexec,
            close_fds=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise RunnerError(f"cannot start the evaluator {argv[0]!r}: {exc}") from None
    try:
        out, err, timed_out, duration = _collect(proc, started + timeout_s, started)
    finally:
        _kill_group(proc.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    return RunResult(
        argv=tuple(argv),
        returncode=None if timed_out else proc.returncode,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=timed_out,
        duration_s=duration,
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        sandbox=choice,
        stdout_valid_utf8=out.valid_utf8(),
    )
