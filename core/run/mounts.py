"""What one sandbox sees, and the bubblewrap or `unshare` command line that builds exactly that view.

A `MountPlan` is either based on the host's root, made read-only (the evaluator's sandbox E: the trusted
evaluator may read what it always could), or on an empty root with only the listed paths (the candidate's
sandbox C: the system directories, the interpreter, its own copy of the tree, the shared scratch dir; the
workspace, the hold-out, other candidates and Proctor's files simply do not exist there). Either way a
private /tmp, /dev/shm and /proc, and only the paths listed `rw` are writable. Mounts are applied parents
first, so a deeper one lands on top of a shallower one.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.errors import RunnerError

__all__ = ["SYSTEM_DIRS", "Mount", "MountPlan", "PlainView", "namespace_argv"]

MountKind = Literal["rw", "ro", "tmpfs", "symlink"]

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""What an empty-root sandbox gets from the host, read-only (symlinks such as /bin -> usr/bin stay links)."""

MOUNT_INIT = Path(__file__).with_name("mount_init.py")


@dataclass(frozen=True)
class Mount:
    """`rw`/`ro`: bind `source` at `dest`; `tmpfs`: an empty private dir at `dest`; `symlink`: `dest` -> `source`."""

    kind: MountKind
    dest: str
    source: str = ""

    def to_json(self) -> list[str]:
        return [self.kind, self.dest, self.source or self.dest]


@dataclass(frozen=True)
class MountPlan:
    """One sandbox's view. `new_root` is the empty directory an empty-root sandbox is built in (`unshare`)."""

    chdir: str
    mounts: tuple[Mount, ...] = ()
    host_root: bool = True
    new_root: str = ""
    network: bool = False
    new_user: bool = False

    def ordered(self) -> list[Mount]:
        """Parents first (stable otherwise), so deeper mounts land on top."""
        return sorted(self.mounts, key=lambda m: m.dest.rstrip("/").count("/"))


@dataclass(frozen=True)
class PlainView:
    """What a run without the two sandboxes (a generator's, say) sees besides its cwd and scratch: the host
    read-only, minus `hidden` (each an empty dir: the measured workspace and its .git, the hold-out), plus
    `read_only` files or dirs that a private /tmp would hide, and the network when `network`."""

    hidden: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()
    network: bool = False

    def mounts(self) -> list[Mount]:
        return [Mount("tmpfs", path) for path in self.hidden] + [Mount("ro", path) for path in self.read_only]


@functools.cache
def system_mounts() -> tuple[Mount, ...]:
    """The host's system directories for an empty root, read-only; a symlinked one stays a symlink (looked
    at once per process: every candidate run needs them)."""
    found = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            found.append(Mount("symlink", path, os.readlink(path)))
        elif os.path.isdir(path):
            found.append(Mount("ro", path))
    return tuple(found)


def namespace_argv(mechanism: str, plan: MountPlan, argv: Sequence[str]) -> list[str]:
    """The full command line that runs `argv` in fresh pid, ipc, mount (and net, user) namespaces under `plan`."""
    program = shutil.which(mechanism)
    if program is None:
        raise RunnerError(f"sandbox mechanism {mechanism!r} is not installed", argv=argv)
    if mechanism == "bwrap":
        return [program, *_bwrap_args(plan), "--", *argv]
    if mechanism == "unshare":
        spec = {
            "chdir": plan.chdir,
            "new_root": "" if plan.host_root else plan.new_root,
            "mounts": [m.to_json() for m in plan.ordered()],
        }
        namespaces = ["--user", "--map-root-user", "--ipc", "--pid", "--fork", "--kill-child"]
        if not plan.network:
            namespaces.append("--net")
        return [
            program,
            *namespaces,
            "--mount-proc",
            "--",
            *(sys.executable, "-I", "-S", "-B", str(MOUNT_INIT), json.dumps(spec)),
            "--",
            *argv,
        ]
    raise RunnerError(f"unknown sandbox mechanism {mechanism!r}: expected unshare or bwrap", argv=argv)


def _bwrap_args(plan: MountPlan) -> list[str]:
    args = ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session"]
    if not plan.network:
        args.append("--unshare-net")
    if plan.new_user:
        args.append("--unshare-user")
    # Run as root, bwrap keeps every capability (CAP_SYS_ADMIN: remount / read-write) unless told.
    args += ["--cap-drop", "ALL"]
    if plan.host_root:
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc"]
        args += ["--tmpfs", "/tmp"]
    else:
        args += ["--dev", "/dev", "--proc", "/proc"]
    for mount in plan.ordered():
        if mount.kind == "rw":
            args += ["--bind", mount.source or mount.dest, mount.dest]
        elif mount.kind == "ro":
            args += ["--ro-bind", mount.source or mount.dest, mount.dest]
        elif mount.kind == "tmpfs":
            args += ["--tmpfs", mount.dest]
        else:
            args += ["--symlink", mount.source, mount.dest]
    return [*args, "--chdir", plan.chdir]
