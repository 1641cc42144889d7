"""The `process` level's run supervisor: when the run ends, every process it started dies (SPEC §4.3).

A process group is not enough: a candidate's helper that calls `setsid` (or double-forks) leaves the group
and would outlive its run, free to rewrite the next candidate's files. This supervisor marks itself a child
subreaper (`PR_SET_CHILD_SUBREAPER`), so every orphan of the run is re-parented to it instead of to init,
runs the command, and when the command exits (or the supervisor gets SIGTERM, SIGINT or SIGHUP) stops and
kills every descendant it still has, found through /proc, until none is left. It then exits as the command
did (a signal death as the same signal). The `namespace` level does not need it: its pid namespace dies
with its init.

Not isolation: the candidate runs as the same user, so it could kill this supervisor first. The `process`
level is reported as not isolated for that reason. Standard library only; run as
`python -I -S core/run/reaper.py ARGV...`.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

_PR_SET_CHILD_SUBREAPER = 36
_KILL_ROUNDS_S = 5.0


class _Stop(Exception):
    """A signal asked the supervisor to end the run now."""


def _stop(signum: int, _frame: object) -> None:
    raise _Stop(signum)


def descendants(root: int) -> list[int]:
    """Every process below `root` (children first listed first), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[-1].split()
        except OSError:
            continue
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    pending = [root]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def kill_descendants() -> None:
    """Freeze, then kill, every descendant until none is left (re-parented orphans included)."""
    me = os.getpid()
    give_up = time.monotonic() + _KILL_ROUNDS_S
    while time.monotonic() < give_up:
        pids = descendants(me)
        if not pids:
            return
        for sig in (signal.SIGSTOP, signal.SIGKILL):  # stopped processes cannot fork meanwhile
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
        _reap()
        time.sleep(0.001)


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(argv: list[str]) -> None:
    if not argv:
        sys.stderr.write("usage: reaper.py ARGV...\n")
        os._exit(2)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _stop)
    child = os.fork()
    if child == 0:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            sys.stderr.write(f"cannot run {argv[0]!r}: {exc.strerror}\n")
        os._exit(127)
    status = (128 + signal.SIGKILL) << 8
    try:
        while True:
            pid, found = os.waitpid(-1, 0)
            if pid == child:
                status = found
                break
    except (_Stop, ChildProcessError):
        pass
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    kill_descendants()
    _exit_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
