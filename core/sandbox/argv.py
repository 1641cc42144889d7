"""The command line that runs a program in its sandbox, and the interpreter every sandbox binds read-only.

A plain run (the probe, a generator, an evaluator without the two sandboxes) sees the host read-only with
its cwd and scratch writable; a run with the two sandboxes of SPEC §4.5 gets its core.run.mounts plan from
core/run/isolation.py. Either way the interpreter's directories are bound read-only where a writable bind
or the private /tmp would cover them, so site-packages can never be patched for the next run.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from core.errors import RunnerError
from core.run.mounts import Mount, MountPlan, PlainView, namespace_argv
from core.run.python_probe import editable_paths
from core.sandbox.bytecode import proctor_bytecode_dirs
from core.sandbox.model import Interpreter, SandboxChoice

__all__ = ["interpreter_mounts", "namespace_prefix", "proctor_interpreter", "sandbox_argv"]

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


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
            raise RunnerError(f"sandbox mechanism {choice.mechanism!r} is not installed", argv=argv, cwd=cwd)
        return [*namespace_prefix(choice.mechanism, program), *argv]
    if plan is None:
        writable = [os.path.realpath(cwd), os.path.realpath(scratch)]
        mounts = [Mount("rw", path) for path in writable]
        mounts += interpreter_mounts(interpreter or proctor_interpreter(), writable)
        view = view or PlainView()
        plan = MountPlan(chdir=writable[0], mounts=(*mounts, *view.mounts()), network=view.network)
    return namespace_argv(choice.mechanism, plan, argv)


_PRIVATE_MOUNTS = ("/tmp", "/dev/shm")


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
    tag = sys.implementation.cache_tag or ""
    return Interpreter(sys.executable, tuple(outer), tag, proctor_bytecode_dirs())


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
