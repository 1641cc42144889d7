"""The init `unshare` runs inside the new user, mount, pid (and net, ipc) namespaces; stdlib only.

    python -I -S -B mount_init.py SPEC_JSON -- ARGV...

SPEC_JSON is core.run.mounts' plan: `chdir`, `new_root` ("" = keep the host's root, made read-only) and the
mounts, parents first. The init builds that view, drops every capability, then forks: the child execs ARGV
and the init stays pid 1 of the namespace, reaping, until the child ends; it exits with the child's status,
or 128 + N when the child was killed by signal N (as bubblewrap does). Running ARGV as pid 1 instead would
make it immune to its own signals: a `kill -9` of itself would be ignored and the run would "exit 0".
Without the capability drop the evaluator (root in its namespace) could simply remount / read-write; any
namespace it creates itself copies these mounts locked. Exit 125 means the sandbox was not built.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import stat
import sys

RDONLY, NOSUID, NODEV, NOEXEC, REMOUNT, NOSYMFOLLOW, BIND, REC = 1, 2, 4, 8, 32, 256, 4096, 16384
ST_NOSYMFOLLOW = 8192
PRIVATE = ("/tmp", "/dev/shm")

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


def die(message: str) -> None:
    os.write(2, f"proctor sandbox: {message}\n".encode(errors="replace"))
    os._exit(125)


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> int:
    raw = [None if s is None else os.fsencode(s) for s in (source, target, fstype, data)]
    return 0 if libc.mount(raw[0], raw[1], raw[2], flags, raw[3]) == 0 else ctypes.get_errno()


def remount(path: str, read_only: bool) -> int:
    """Per-mount flags inherited from the parent namespace are locked: pass them back unchanged."""
    try:
        have = os.statvfs(path).f_flag
    except OSError as exc:
        return exc.errno or errno.EIO
    keep = (have & (NOSUID | NODEV | NOEXEC)) | (NOSYMFOLLOW if have & ST_NOSYMFOLLOW else 0)
    return mount(None, path, None, REMOUNT | BIND | keep | (RDONLY if read_only else 0))


def mount_points() -> list[str]:
    with open("/proc/self/mountinfo", "rb") as handle:
        raw = [line.split()[4] for line in handle]
    # mountinfo escapes space, tab, newline and backslash as \ooo octal.
    return list(dict.fromkeys(os.fsdecode(p.decode("unicode_escape").encode("latin-1")) for p in raw))


def under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def is_writable(path: str, writable: list[str], read_only: list[str]) -> bool:
    """The deepest mount listed over `path` decides whether it stays writable."""
    best = max((r for r in writable + read_only if under(path, [r])), key=len, default="")
    return bool(best) and best in writable and best not in read_only


def make_target(target: str, like_dir: bool) -> None:
    if like_dir:
        os.makedirs(target, exist_ok=True)
    elif not os.path.lexists(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))


def open_sources(mounts: list[list[str]]) -> dict[str, int]:
    """O_PATH handles on every bind source, taken before a tmpfs or the new root can hide it."""
    handles = {}
    for kind, _dest, source in mounts:
        if kind not in ("rw", "ro") or source in handles:
            continue
        try:
            handles[source] = os.open(source, os.O_PATH | os.O_CLOEXEC)
        except OSError as exc:
            if kind == "rw":
                die(f"cannot open {source}: {exc.strerror}")
    return handles


def apply(mounts: list[list[str]], base: str, handles: dict[str, int]) -> None:
    for kind, dest, source in mounts:
        target = base + dest
        try:
            if kind == "symlink":
                os.makedirs(os.path.dirname(target), exist_ok=True)
                os.symlink(source, target)
                continue
            if kind == "tmpfs":
                make_target(target, True)
                failed = mount("tmpfs", target, "tmpfs", NOSUID | NODEV, "mode=1777")
            elif source not in handles:
                continue  # a read-only source that does not exist: nothing to show
            else:
                make_target(target, stat.S_ISDIR(os.fstat(handles[source]).st_mode))
                failed = mount(f"/proc/self/fd/{handles[source]}", target, None, BIND | REC)
                failed = failed or remount(target, kind == "ro")
        except OSError as exc:
            die(f"cannot prepare {dest}: {exc.strerror}")
        if failed:
            die(f"cannot mount {dest} ({kind}): {os.strerror(failed)}")


def lock_read_only(base: str, writable: list[str], read_only: list[str]) -> None:
    """Every mount not under a writable path is read-only; check it really is."""
    for point in mount_points():
        if base and not under(point, [base]):
            continue
        inside = point[len(base) :] or "/"
        if is_writable(inside, writable, read_only):
            continue
        failed = remount(point, True)
        # Not a mount root any more (hidden under another mount) or not reachable: nothing to protect.
        if failed and failed not in (errno.EINVAL, errno.ENOENT, errno.EACCES, errno.EPERM):
            die(f"cannot make {point} read-only: {os.strerror(failed)}")
        try:
            still_writable = not os.statvfs(point).f_flag & RDONLY
        except OSError:
            continue
        if still_writable and not failed:
            die(f"{point} is still writable")


def drop_privileges() -> None:
    # Binary: after the chroot no codec can be imported (the new root may hold another Python's stdlib).
    with open("/proc/sys/kernel/cap_last_cap", "rb") as handle:
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


def build(spec: dict[str, object]) -> None:
    mounts = [list(m) for m in spec["mounts"]]  # type: ignore[attr-defined]
    base = str(spec["new_root"]).rstrip("/")
    handles = open_sources(mounts)
    if base:
        failed = mount("tmpfs", base, "tmpfs", NOSUID | NODEV, "mode=0755")
        if failed:
            die(f"cannot mount the sandbox root: {os.strerror(failed)}")
        for point in ("/dev", "/proc"):
            make_target(base + point, True)
            failed = mount(point, base + point, None, BIND | REC)
            if failed:
                die(f"cannot bind {point}: {os.strerror(failed)}")
    else:
        lock_read_only("", [], [])
    private = [p for p in PRIVATE if os.path.isdir(p)]
    for point in private:
        make_target(base + point, True)
        failed = mount("tmpfs", base + point, "tmpfs", NOSUID | NODEV, "mode=1777")
        if failed:
            die(f"cannot mount a private tmpfs on {point}: {os.strerror(failed)}")
    apply(mounts, base, handles)
    writable = [dest for kind, dest, _s in mounts if kind in ("rw", "tmpfs")] + private
    read_only = [dest for kind, dest, _s in mounts if kind == "ro"]
    lock_read_only(base, writable, read_only)
    for handle_fd in handles.values():
        os.close(handle_fd)
    if base:
        os.chroot(base)


def run(argv: list[str], workdir: str) -> None:
    """Fork: the child execs `argv`, this init reaps until it ends and exits with its status."""
    try:
        os.chdir(workdir)  # the inherited cwd still points at the mount underneath
    except OSError as exc:
        die(f"cannot enter {workdir}: {exc.strerror}")
    child = os.fork()
    if child == 0:
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            die(f"cannot start {argv[0]}: {exc.strerror}")
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(125)
        except InterruptedError:
            continue
        if pid == child:
            break
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status))


def main(args: list[str]) -> None:
    split = args.index("--")
    spec = json.loads(args[0])
    build(spec)
    drop_privileges()
    run(args[split + 1 :], str(spec["chdir"]))


if __name__ == "__main__":
    main(sys.argv[1:])
