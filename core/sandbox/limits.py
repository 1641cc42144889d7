"""Resource limits for every run: CPU time, open files, core size 0 and optionally address space."""

from __future__ import annotations

import math
import os
import resource
from collections.abc import Callable

__all__ = ["rlimits_preexec"]

_OPEN_FILES_LIMIT = 4096


def rlimits_preexec(timeout_s: float, memory_limit_mb: int | None) -> Callable[[], None]:
    """The preexec hook: only setrlimit calls with values computed here, in the parent, so it is fork-safe.

    CPU time bounds a process that escaped the group; core size 0 keeps dumps (and their secrets) off disk.
    """
    cpu = max(1, math.ceil(timeout_s)) * max(1, os.cpu_count() or 1) + 1
    _soft, nofile_hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    nofile = (
        _OPEN_FILES_LIMIT if nofile_hard == resource.RLIM_INFINITY else min(_OPEN_FILES_LIMIT, nofile_hard)
    )
    settings: list[tuple[int, tuple[int, int]]] = [
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NOFILE, (nofile, nofile)),
        (resource.RLIMIT_CPU, _capped(resource.RLIMIT_CPU, cpu, cpu + 5)),
    ]
    if memory_limit_mb is not None:
        size = memory_limit_mb * 1024 * 1024
        settings.append((resource.RLIMIT_AS, _capped(resource.RLIMIT_AS, size, size)))

    def apply() -> None:
        for which, pair in settings:
            resource.setrlimit(which, pair)

    return apply


def _capped(which: int, soft: int, hard: int) -> tuple[int, int]:
    """Never ask for more than the current hard limit (that would fail in the child)."""
    _cur_soft, cur_hard = resource.getrlimit(which)
    if cur_hard != resource.RLIM_INFINITY:
        hard = min(hard, cur_hard)
        soft = min(soft, hard)
    return soft, hard
