"""Job functions the queue tests run on real `proctor worker` processes (imported there by name)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any


def echo(payload: Any) -> Any:
    return payload


def boom(payload: Any) -> Any:
    raise ValueError(f"cannot do {payload!r}")


def slow(payload: dict[str, Any]) -> int:
    """Log a start line (pid) to `payload["log"]`, sleep `payload["seconds"]`, return the pid."""
    with open(Path(payload["log"]), "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\n")
    time.sleep(float(payload["seconds"]))
    return os.getpid()


def child(payload: dict[str, Any]) -> int:
    """Log a start line, then wait for a child process that sleeps `payload["seconds"]`; its exit code."""
    with open(Path(payload["log"]), "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\n")
    return subprocess.run(["sleep", str(payload["seconds"])], check=False).returncode
