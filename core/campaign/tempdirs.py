"""Campaign work roots in the temp dir: made with a marker, and the leftovers of killed runs removed.

A campaign materializes every candidate under one private temp dir and removes it when it ends, Ctrl-C
included. A kill -9 cannot clean up, so each work root holds a marker naming its process (pid and the kernel's
start time, which a reused pid does not share); a later campaign removes any marked work root whose process is
gone. Only directories with Proctor's prefix *and* a valid marker are ever touched.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from core.treewalk import remove_tree

PREFIX = "proctor-campaign-"
MARKER = ".proctor-work-root"


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat); None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


def make_work_root(campaign_id: str) -> Path:
    """A new work root for `campaign_id`, marked as this process's."""
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{campaign_id}-"))
    pid = os.getpid()
    marker = {"pid": pid, "start": _start_time(pid), "campaign_id": campaign_id}
    (path / MARKER).write_text(json.dumps(marker), encoding="utf-8")
    return path


def _is_orphan(path: Path) -> bool:
    try:
        marker = json.loads((path / MARKER).read_text(encoding="utf-8"))
        pid = int(marker["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return False  # no marker, or not ours: never removed
    start = _start_time(pid)
    return start is None or start != marker.get("start")


def remove_orphans(temp_dir: Path | None = None) -> list[Path]:
    """Remove the work roots of campaign processes that no longer exist; returns what was removed."""
    base = Path(temp_dir or tempfile.gettempdir())
    removed = []
    with contextlib.suppress(OSError):
        for child in sorted(base.iterdir()):
            if (
                child.name.startswith(PREFIX)
                and child.is_dir()
                and not child.is_symlink()
                and _is_orphan(child)
            ):
                remove_tree(child)
                removed.append(child)
    return removed


@contextlib.contextmanager
def work_root(campaign_id: str) -> Iterator[Path]:
    """A private work root for one campaign's materialized trees, removed when it ends; leftovers of killed
    campaigns (marked) are removed first."""
    remove_orphans()
    path = make_work_root(campaign_id)
    path.chmod(0o300)  # its entries have random names, and it cannot be listed (by anyone but root)
    try:
        yield path
    finally:
        remove_tree(path)
