"""The candidate service: Proctor's side of the stub (SPEC §4.5), one per evaluator run, outside every sandbox.

It listens on a unix socket that only E sees. Each request from the stub starts one fresh candidate sandbox
C — a new copy of the tree without the protected parts, new user/pid/ipc/net namespaces — with the stub's
argv, cwd and environment, and the stub's own stdin/stdout/stderr passed over the socket as file descriptors,
so output streams exactly as a direct child's would. The reply is C's status, one line as core/run/stub.py
reads it (a signal death as the signal); the stub going away (killed by the evaluator's timeout, or the run
ending) kills C, and closing the service kills every C still running.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.run.isolation import Isolation, RunLayout, candidate_plan, copy_candidate_tree
from core.run.mounts import namespace_argv

if TYPE_CHECKING:
    from core.sandbox import Interpreter, SandboxChoice

__all__ = ["CandidateService"]

_MAX_REQUEST = 4 * 1024 * 1024
_MAX_FDS = 3


@dataclass
class _Stats:
    launches: int = 0
    imported: bool = False


class CandidateService:
    """Starts each C for one run; `launches` and `imported` say how the candidate ran (for `isolation`)."""

    def __init__(
        self,
        layout: RunLayout,
        isolation: Isolation,
        choice: SandboxChoice,
        tree: Path,
        interpreter: Interpreter,
        *,
        deadline: float,
        preexec: Callable[[], None],
        extra_read_only: tuple[str, ...] = (),
    ) -> None:
        self.layout, self.isolation, self.choice = layout, isolation, choice
        self.tree, self.interpreter, self.deadline = tree, interpreter, deadline
        self.preexec, self.extra_read_only = preexec, extra_read_only
        self.stats = _Stats()
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self._threads: list[threading.Thread] = []
        self._closing = False
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(layout.socket))
        self._listener.listen(16)
        self._stop_r, self._stop_w = os.pipe()
        self._acceptor = threading.Thread(
            target=self._accept_loop, name="proctor-candidate-service", daemon=True
        )
        self._acceptor.start()

    @property
    def launches(self) -> int:
        return self.stats.launches

    @property
    def imported(self) -> bool:
        return self.stats.imported

    def close(self) -> None:
        """Stop accepting and kill every candidate sandbox still running."""
        self._closing = True
        with contextlib.suppress(OSError):
            os.write(self._stop_w, b"x")
        self._acceptor.join(timeout=5)
        with self._lock:
            live = list(self._live)
        for proc in live:
            _kill(proc)
        for thread in list(self._threads):
            thread.join(timeout=5)
        self._listener.close()
        for fd in (self._stop_r, self._stop_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    # ----------------------------------------------------------------------------------------- plumbing

    def _accept_loop(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._listener, selectors.EVENT_READ, "listen")
            selector.register(self._stop_r, selectors.EVENT_READ, "stop")
            while not self._closing:
                for key, _mask in selector.select():
                    if key.data == "stop":
                        return
                    with contextlib.suppress(OSError):
                        conn, _addr = self._listener.accept()
                        thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
                        self._threads.append(thread)
                        thread.start()

    def _serve(self, conn: socket.socket) -> None:
        fds: list[int] = []
        reply = "exit 0"
        try:
            request, fds = _receive(conn)
            if request.get("kind") == "imported":
                self.stats.imported = True
            else:
                reply = self._run(request, fds, conn)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            reply = _error(f"bad request: {exc}")
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
        with contextlib.suppress(OSError):
            conn.sendall(reply.replace("\n", " ").encode("utf-8", "replace") + b"\n")
        conn.close()

    def _run(self, request: dict[str, Any], fds: list[int], conn: socket.socket) -> str:
        argv = [str(a) for a in request["argv"]]
        env = {str(k): str(v) for k, v in dict(request["env"]).items()}
        cwd = str(request["cwd"])
        if not argv or len(fds) != _MAX_FDS:
            return _error("empty argv or missing stdin/stdout/stderr")
        timeout = request.get("timeout")
        deadline = self.deadline if timeout is None else min(self.deadline, time.monotonic() + float(timeout))
        with self._lock:
            if self._closing:
                return _error("the run is over")
            self.stats.launches += 1
            number = self.stats.launches
        proc = self._start(number, argv, env, cwd, fds)
        if isinstance(proc, str):
            return _error(proc)
        try:
            timed_out = _wait(proc, conn, deadline)
        finally:
            _kill(proc)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            with self._lock:
                self._live.discard(proc)
        if timed_out:
            return "timeout " + (f"{timeout:g} s" if timeout is not None else "the run's time limit")
        return _status(proc.returncode)

    def _start(
        self, number: int, argv: list[str], env: dict[str, str], cwd: str, fds: list[int]
    ) -> subprocess.Popen[bytes] | str:
        base = self.layout.candidate_dir(number)
        copy, new_root = base / "tree", base / "root"
        try:
            copy_candidate_tree(self.tree, copy, self.isolation)
            new_root.mkdir()
            root = os.path.realpath(self.tree)
            if cwd == root or cwd.startswith(root + "/"):
                _make_cwd(copy, os.path.relpath(cwd, root))
            plan = candidate_plan(
                self.isolation,
                self.layout,
                self.tree,
                copy,
                self.interpreter,
                cwd=cwd,
                new_root=new_root,
                extra_read_only=self.extra_read_only,
            )
            full = namespace_argv(self.choice.mechanism, plan, argv)
        except OSError as exc:
            return f"cannot prepare the candidate's sandbox: {exc}"
        with self._lock:
            if self._closing:
                return "the run is over"
            try:
                proc = subprocess.Popen(
                    full,
                    cwd=str(base),
                    env=env,
                    stdin=fds[0],
                    stdout=fds[1],
                    stderr=fds[2],
                    start_new_session=True,
                    preexec_fn=self.preexec,  # only setrlimit calls: fork-safe
                    close_fds=True,
                )
            except (OSError, subprocess.SubprocessError) as exc:
                return f"cannot start the candidate sandbox: {exc}"
            self._live.add(proc)
        return proc


def _make_cwd(copy: Path, rel: str) -> None:
    """The evaluator's cwd inside C's copy (the suite, say, is not copied): created only through real
    directories, never through a symlink the candidate committed."""
    current = copy
    for part in Path(rel).parts:
        current = current / part
        if current.is_symlink():
            return
        if not current.exists():
            current.mkdir()


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """One length-prefixed JSON request and the file descriptors sent with it."""
    fds: list[int] = []
    data = b""
    space = socket.CMSG_SPACE(_MAX_FDS * array.array("i").itemsize)
    while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
        chunk, ancillary, _flags, _addr = conn.recvmsg(65536, space if not fds else 0)
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                received = array.array("i")
                received.frombytes(payload[: len(payload) - len(payload) % received.itemsize])
                fds.extend(received)
        if not chunk:
            break
        data += chunk
        if len(data) > _MAX_REQUEST:
            raise ValueError("request too large")
    if len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
        for fd in fds:
            os.close(fd)
        raise ValueError("truncated request")
    request = json.loads(data[4:].decode("utf-8", "surrogateescape"))
    if not isinstance(request, dict):
        raise ValueError("request is not an object")
    return request, fds


def _wait(proc: subprocess.Popen[bytes], conn: socket.socket, deadline: float) -> bool:
    """Until C ends (False), the deadline passes (True), or the stub hangs up (C is killed)."""
    with selectors.DefaultSelector() as selector:
        pidfd = None
        with contextlib.suppress(AttributeError, OSError):
            pidfd = os.pidfd_open(proc.pid)
            selector.register(pidfd, selectors.EVENT_READ, "exit")
        selector.register(conn, selectors.EVENT_READ, "stub")
        try:
            while proc.poll() is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return True
                for key, _mask in selector.select(min(left, 0.05) if pidfd is None else left):
                    if key.data == "stub":
                        # Anything or EOF: the stub never sends more after its request, so it is gone.
                        _kill(proc)
                        proc.wait()
                        return False
            return False
        finally:
            if pidfd is not None:
                os.close(pidfd)


def _error(why: str) -> str:
    """The reply for a candidate that could not be run (the stub exits 126 with `why`)."""
    return f"error 126 {why}"


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _status(code: int | None) -> str:
    """The sandbox reports a child killed by signal N as 128 + N: hand it back as that signal."""
    if code is None:
        return _error("the candidate's status is unknown")
    if code < 0:
        return f"signal {-code}"
    if 128 < code <= 128 + 64:
        return f"signal {code - 128}"
    return f"exit {code}"
