"""Full garbage collections only while the editor is idle.

The chunk caches hold tens of thousands of AST nodes; CPython's automatic full (generation 2) collection
walks all of them, a 30-70 ms pause that lands on whatever keystroke triggered it (the p95 of an edit). The
young generations still collect on their own (the per-lint garbage, cycles included, dies young); full
collections wait until no message arrived for `IDLE_SECONDS`.
"""

from __future__ import annotations

import asyncio
import gc
import time

IDLE_SECONDS = 1.0
# Generation 2 never collects on its own at this threshold (CPython also waits for 25 % new long-lived objects).
NO_AUTOMATIC_FULL = 1_000_000


class IdleCollector:
    """`poke()` on every message; a full collection runs once the server has been quiet for a while.

    One timer, re-armed for the rest of the quiet time when it fires early, instead of a timer cancelled and
    created on every message (every keystroke)."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self._timer: asyncio.TimerHandle | None = None
        self._last_poke = 0.0
        self.collections = 0

    def install(self) -> None:
        young, middle, _full = gc.get_threshold()
        gc.set_threshold(young, middle, NO_AUTOMATIC_FULL)

    def poke(self) -> None:
        self._last_poke = time.monotonic()  # the event loop's clock
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(self.idle_seconds, self._quiet)

    def _quiet(self) -> None:
        """The timer fired: collect if nothing arrived since, else wait for the rest of the quiet time."""
        self._timer = None
        rest = self._last_poke + self.idle_seconds - time.monotonic()
        if rest > 0:
            self._timer = asyncio.get_running_loop().call_later(rest, self._quiet)
            return
        self.collect()

    def collect(self) -> None:
        self._timer = None
        gc.collect()
        self.collections += 1

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
