"""Stands in for the candidate inside the evaluator's sandbox (SPEC §4.5); stdlib only, any Python 3.

Installed by Proctor over the configured entry point (read-only, in E's view only), and as
`$PROCTOR_RUN_CANDIDATE [--timeout S] -- ARGV...`. Run as a program, it hands its argv, cwd, environment
and its stdin/stdout/stderr file descriptors to Proctor's candidate service over a unix socket; the service
runs the real entry point in a fresh candidate sandbox with exactly those, and this stub exits with the
candidate's status — a signal death as the same signal. Killing the stub closes the socket, and the service
kills the candidate. Imported in-process instead (an evaluator that imports the entry point), it runs the
real entry point's code right here and tells Proctor, which reports the run as not isolated.

Proctor fills in SOCKET_PATH and ENTRY_SOURCE when it installs a copy; with no socket (the `process`
level), `$PROCTOR_RUN_CANDIDATE` simply runs ARGV. The request is length-prefixed JSON; the reply one line:
`exit N`, `signal N`, `timeout WHY` or `error CODE WHY`.
"""

from __future__ import annotations

# The C modules behind socket, signal and json: the stub starts once per candidate run, and their Python
# wrappers import enum, re and functools (~10 ms a start on these machines).
import _signal  # type: ignore[import-not-found]  # not in typeshed
import _socket
import os
import sys

try:
    from _json import encode_basestring_ascii as _quote
except ImportError:  # an interpreter without the accelerator
    from json import dumps as _quote

SOCKET_PATH = ""
ENTRY_SOURCE = ""
EXPLICIT_NAME = "proctor-run-candidate"
EXIT_TIMEOUT, EXIT_CANNOT_RUN, EXIT_NO_SERVICE = 124, 126, 125


def _say(message: str) -> None:
    try:  # noqa: SIM105 (importing contextlib would cost every stub start)
        os.write(2, f"proctor: {message}\n".encode(errors="replace"))
    except OSError:
        pass


def _std_fds() -> list[int]:
    """fds 0, 1 and 2 as the candidate should get them (/dev/null for a closed one)."""
    fds = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            fds.append(os.open(os.devnull, os.O_RDWR))
    return fds


def _dumps(value: object) -> str:
    """JSON for what a request holds (str, float, None, lists and str-keyed dicts of them)."""
    if isinstance(value, str):
        return str(_quote(value))
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(float(value))
    if isinstance(value, dict):
        return "{" + ",".join(f"{_dumps(str(k))}:{_dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_dumps(v) for v in value) + "]"
    raise TypeError(f"cannot send {type(value).__name__}")


def _exchange(request: dict[str, object], fds: list[int]) -> str:
    """Send `request` (length-prefixed JSON, with `fds` attached) and wait for the one-line reply."""
    body = _dumps(request).encode("ascii")
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.connect(SOCKET_PATH)
        rights = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in fds)
        message = len(body).to_bytes(4, "big") + body
        sent = conn.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, rights)] if fds else [])
        if sent < len(message):
            conn.sendall(message[sent:])
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            reply += chunk
    finally:
        conn.close()
    if not reply:
        return f"error {EXIT_NO_SERVICE} the candidate service went away"
    return reply.decode("utf-8", "replace").strip()


def _finish(reply: str) -> None:
    """Exit as the candidate did."""
    kind, _, rest = reply.partition(" ")
    if kind == "signal" and rest.isdigit():
        number = int(rest)
        try:  # noqa: SIM105 (SIGKILL and SIGSTOP cannot be caught anyway)
            _signal.signal(number, _signal.SIG_DFL)
        except (OSError, ValueError):
            pass
        try:  # noqa: SIM105
            os.kill(os.getpid(), number)
        except (OSError, ValueError):
            pass
        os._exit(128 + number)
    if kind == "exit" and rest.lstrip("-").isdigit():
        os._exit(int(rest))
    if kind == "timeout":
        _say(f"the candidate did not finish in time ({rest}): it was killed")
        os._exit(EXIT_TIMEOUT)
    code, _, why = rest.partition(" ")
    _say(f"cannot run the candidate: {why if code.isdigit() else reply}")
    os._exit(int(code) if code.isdigit() else EXIT_CANNOT_RUN)


def run_candidate(argv: list[str], timeout: float | None) -> None:
    """Ask for `argv` to run in a fresh candidate sandbox, here-and-now as it would have run; never returns."""
    if not SOCKET_PATH:
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            _say(f"cannot start {argv[0]}: {exc.strerror}")
            os._exit(EXIT_CANNOT_RUN)
    request: dict[str, object] = {
        "kind": "run",
        "argv": argv,
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "timeout": timeout,
    }
    try:
        reply = _exchange(request, _std_fds())
    except (OSError, ValueError) as exc:
        reply = f"error {EXIT_NO_SERVICE} no candidate service: {exc}"
    _finish(reply)


def _explicit(args: list[str]) -> None:
    """`proctor-run-candidate [--timeout S] -- ARGV...`"""
    timeout = None
    if args[:1] == ["--timeout"] and len(args) > 1:
        try:
            timeout = float(args[1])
        except ValueError:
            timeout = -1.0
        args = args[2:]
    if args[:1] != ["--"] or len(args) < 2 or (timeout is not None and timeout <= 0):
        _say(f"usage: {EXPLICIT_NAME} [--timeout SECONDS] -- PROGRAM [ARGS...]")
        os._exit(2)
    run_candidate(args[1:], timeout)


def _launched_as_program(module_file: str) -> bool:
    """True when this file is the program being run (not imported, not exec'd inside the evaluator)."""
    try:
        return os.path.realpath(sys.argv[0]) == os.path.realpath(module_file)
    except (IndexError, TypeError, ValueError):
        return False


def _run_in_process(namespace: dict[str, object]) -> None:
    """The evaluator imported the entry point: tell Proctor (best effort), then be the real module."""
    if SOCKET_PATH:
        try:  # noqa: SIM105
            _exchange({"kind": "imported"}, [])
        except (OSError, ValueError):
            pass
    with open(ENTRY_SOURCE, "rb") as handle:
        source = handle.read()
    exec(compile(source, str(namespace.get("__file__", ENTRY_SOURCE)), "exec"), namespace)


def main() -> None:
    if os.path.basename(sys.argv[0]) == EXPLICIT_NAME:
        _explicit(sys.argv[1:])
    if _launched_as_program(__file__):
        argv = list(getattr(sys, "orig_argv", [])) or [sys.executable, *sys.argv]
        run_candidate(argv, None)
    _run_in_process(globals())


if __name__ == "__main__" or ENTRY_SOURCE:
    main()
