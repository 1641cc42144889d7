"""Proctor's own secrets (judge and GitHub keys): read once, then gone from its environment (SPEC §4.3).

`os.environ.pop` is not enough. `/proc/<pid>/environ` shows the environment block the process was started
with (the kernel reads it from the process's memory between `env_start` and `env_end`), and any code running
as the same user — a candidate at the `process` level — can read it. `hide` therefore also overwrites the
variable's bytes in that block (glibc no longer points at them once `unsetenv` ran). The values live on only
in this module's vault, where `get` finds them. Processes forked afterwards (campaign workers) inherit the
cleaned block; programs Proctor starts get environments built from allow-lists anyway.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterable

# Names Proctor or its users keep keys in; plus anything that looks like a credential (`looks_secret`).
KNOWN_SECRETS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "PROCTOR_PRIVATE_KEY",
    "PROCTOR_WEBHOOK_SECRET",
    "PROCTOR_DASHBOARD_TOKEN",
    "PROCTOR_JUDGE_API_KEY",
)
_SECRET_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|PRIVATE_KEY|ACCESS_KEY)", re.I)

_vault: dict[str, str] = {}
_lock = threading.Lock()
_started_hidden: list[bool] = []  # set by `hide_all` (the `proctor` program does it first thing)


def looks_secret(name: str) -> bool:
    return name in KNOWN_SECRETS or bool(_SECRET_NAME.search(name))


def _environ_block() -> tuple[int, int] | None:
    """(start, end) address of this process's initial environment block (/proc/self/stat fields 50, 51)."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[-1].split()
        start, end = int(fields[47]), int(fields[48])
    except (OSError, IndexError, ValueError):
        return None
    return (start, end) if 0 < start < end else None


def _wipe_from_block(names: set[str]) -> None:
    found = _environ_block()
    if found is None or not names:
        return
    start, end = found
    # Only `hide` writes memory; everything that merely asks `looks_secret` (every `core.errors` user, the
    # language server's and `proctor check`'s start-up among them) does without ctypes.
    import ctypes

    block = ctypes.string_at(start, end - start)
    offset = 0
    for entry in block.split(b"\0"):
        name = entry.split(b"=", 1)[0].decode("utf-8", "surrogateescape")
        if b"=" in entry and name in names:
            ctypes.memset(start + offset, 0, len(entry))
        offset += len(entry) + 1


def hide(names: Iterable[str]) -> None:
    """Move `names` from the environment into the vault and wipe them from the initial environment block."""
    wanted = set(names)
    with _lock:
        for name in wanted:
            value = os.environ.pop(name, None)
            if value is not None:
                _vault.setdefault(name, value)
        with contextlib.suppress(OSError, ValueError):
            _wipe_from_block(wanted)


def hide_all() -> None:
    """`hide` every known or credential-looking variable of the environment: the `proctor` program's first
    step, before it reads a config or runs anything a candidate controls."""
    hide({*KNOWN_SECRETS, *(name for name in os.environ if looks_secret(name))})
    _started_hidden.append(True)


def hide_configured(name: str) -> None:
    """Hide a variable a config names as a secret (`[judge] api_key_env`) in a process that hides them."""
    if _started_hidden and name:
        hide([name])


def get(name: str, default: str = "") -> str:
    """A secret's value: the environment's when set there, else the vault's (once hidden)."""
    value = os.environ.get(name)
    if value is not None:
        return value
    with _lock:
        return _vault.get(name, default)
