"""Start one sandboxed command and collect what it prints (core/runner.py's run_evaluator uses it).

Every run gets its own session/process group; stdout and stderr are read with a selector so a grandchild
that keeps a pipe open cannot hang us, each kept to its last 1 MiB; at the deadline, and as soon as the main
process ends, the WHOLE group is killed (the `process` level's reaper takes every descendant with it).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import RunnerError

if TYPE_CHECKING:
    from core.sandbox import SandboxChoice

__all__ = ["OUTPUT_CAP_BYTES", "RunResult", "kill_group", "last_line", "launch"]

OUTPUT_CAP_BYTES = 1024 * 1024
"""Each stream keeps its last 1 MiB: the end of a log says why a run failed, the start rarely does."""

_DRAIN_GRACE_S = 1.0  # after the main process ends: how long to wait for its pipes to close
_REAPER_GRACE_S = 2.0  # at the deadline: how long the run's leader may take to kill its descendants


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


def kill_group(pgid: int) -> None:
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


class _Streams:
    """Both pipes of a run and, where the kernel has one, a pidfd that says when its main process ends."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.out, self.err = _Tail(OUTPUT_CAP_BYTES), _Tail(OUTPUT_CAP_BYTES)
        self.tails = {proc.stdout.fileno(): self.out, proc.stderr.fileno(): self.err}
        self.selector = selectors.DefaultSelector()
        self.pidfd: int | None = None
        for fd in self.tails:
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ, "pipe")
        with contextlib.suppress(AttributeError, OSError):
            self.pidfd = os.pidfd_open(proc.pid)
            self.selector.register(self.pidfd, selectors.EVENT_READ, "exit")

    def pipes_open(self) -> bool:
        return any(key.data == "pipe" for key in self.selector.get_map().values())

    def read(self, wait: float) -> None:
        """Read whatever is ready within `wait` seconds; a closed pipe is unregistered."""
        for key, _mask in self.selector.select(wait):
            if key.data == "exit":
                self.selector.unregister(key.fd)
                continue
            try:
                chunk = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if chunk:
                self.tails[key.fd].add(chunk)
            else:
                self.selector.unregister(key.fd)

    def close(self) -> None:
        self.selector.close()
        if self.pidfd is not None:
            os.close(self.pidfd)


def collect(
    proc: subprocess.Popen[bytes], deadline: float, started: float
) -> tuple[_Tail, _Tail, bool, float]:
    """Read both pipes until the process ends (or the deadline), then kill whatever is left of its group.

    Returns (stdout tail, stderr tail, timed_out, duration). Waiting for exit uses a pidfd where the kernel
    has one, so a fast evaluator is not delayed by polling.
    """
    streams = _Streams(proc)
    try:
        exited = timed_out = False
        ended = stop_at = deadline
        while not (exited and not streams.pipes_open()):
            now = time.monotonic()
            if now >= stop_at:
                if exited:
                    break  # an escaped process still holds a pipe: stop reading, keep what we have
                timed_out, exited, ended = True, True, now
                kill_group(proc.pid)
                stop_at = now + _DRAIN_GRACE_S
                continue
            polling = streams.pidfd is None and not exited
            streams.read(min(stop_at - now, 0.02) if polling else stop_at - now)
            if not exited and _has_exited(proc.pid):
                exited, ended = True, time.monotonic()
                kill_group(proc.pid)  # leftovers (daemons, grandchildren) die with the run
                stop_at = stop_at if timed_out else min(stop_at, ended + _DRAIN_GRACE_S)
        return streams.out, streams.err, timed_out, ended - started
    finally:
        streams.close()


def launch(
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
        raise RunnerError(f"cannot start the evaluator {argv[0]!r}: {exc}", argv=full, cwd=cwd) from None
    try:
        out, err, timed_out, duration = collect(proc, started + timeout_s, started)
    finally:
        kill_group(proc.pid)
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
