"""Run an evaluator command safely (SPEC §4.3): the one place Proctor starts untrusted evaluation code.

Every run gets its own session/process group, rlimits (CPU time, open files, core size 0, optional address
space), a wall-clock deadline after which the WHOLE group is killed, both streams capped at their last
1 MiB (core/run/process.py), and an environment built from an allow-list (never tokens or secrets). The
`namespace` level adds private user, network, pid and IPC namespaces and a filesystem that is read-only
outside the run's cwd, its scratch dir and a private /tmp (bubblewrap, or `unshare` plus a tiny init), so
the evaluator has no network and cannot leave anything behind for the next run. With an `isolation`
(verify, campaigns) the run gets two sandboxes (SPEC §4.5, see core/run/): the evaluator's, where the suite
and protected inputs are read-only and the entry point is a stub, and a fresh one for the candidate each
time the stub runs it. `auto` probes once per process, picks the strongest level that works here, and says
which.

The sandbox levels, the environment allow-list and the rlimits live in core/sandbox/ and are re-exported
here. Nothing holds process-wide state except the probe cache, so the runner is safe to use from a process
pool (each worker probes once) or from threads.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.errors import RunnerError
from core.run.isolation import Isolation, RunLayout
from core.run.mounts import PlainView
from core.run.process import OUTPUT_CAP_BYTES, RunResult, launch
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

_REAPER = str(Path(__file__).resolve().parent / "run" / "reaper.py")
_PYTHON_NAMES = frozenset({"python", "python3", f"python3.{sys.version_info.minor}"})


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


def _resolve_program(argv: Sequence[str], cwd: Path, path: str) -> str:
    """Fail before starting when the program does not exist (the same error for every sandbox level)."""
    program = argv[0]
    if os.sep in program:
        candidate = Path(program) if os.path.isabs(program) else cwd / program
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return program
        raise RunnerError(
            f"evaluator program {program!r} does not exist or is not executable (in {cwd})",
            argv=argv,
            cwd=cwd,
        )
    found = shutil.which(program, path=path)
    if found is None:
        raise RunnerError(f"evaluator program {program!r} not found on PATH", argv=argv, cwd=cwd)
    return found


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
        raise RunnerError(f"cannot run the evaluator: directory {str(cwd)!r} does not exist", cwd=cwd)
    interpreter = interpreter or proctor_interpreter()
    argv = build_argv(command, extra_args, interpreter)
    layout = RunLayout(Path(tempfile.mkdtemp(prefix="proctor-run-")))
    session: RunSession | None = None
    try:
        env = scrubbed_env(extra_env, scratch=layout.scratch, pycache=layout.pycache, interpreter=interpreter)
        argv[0] = _resolve_program(argv, cwd, env["PATH"])
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
        result = launch(full, argv, cwd, env, timeout_s, preexec, choice)
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
