"""Job functions the queue tests run on real `proctor worker` processes (imported there by name)."""

from __future__ import annotations

import os
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
