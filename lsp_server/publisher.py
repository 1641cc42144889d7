"""Push-diagnostics bookkeeping: when each open document is linted and what was last published for it.

The debounce adapts to what a lint costs. A document whose lint is cheap (at most half of `debounceMs` of
CPU time: on a busy machine the wall time says more about the other processes than about the lint; an edit
inside a long function of a large evaluator costs 10-20 ms, and waiting 50 ms more for it helps nobody)
is linted on the next event-loop turn after every edit: the messages already read are handled first, so a
burst of edits still costs one lint, and a person pressing Enter sees the result at once (as with ruff's
server). So is the first edit of a document, whose cost is not known yet (the open's lint is cold and says
nothing about an edit's). A document whose lint is slow gets the classic debounce with a leading edge: an
edit after a quiet spell is linted at once, edits within `debounceMs` of the last lint are coalesced into one.

Timers call plain functions, never await a client request (pygls #621).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from lsprotocol import types

from lsp_server.engine import Engine

log = logging.getLogger(__name__)

# A lint costing at most this fraction of the debounce runs on every edit (see module docstring).
CHEAP_FRACTION = 0.5


class Publisher:
    """Per-document timers, lint costs and the (version, result id) last pushed, for push clients."""

    def __init__(
        self, engine: Engine, send: Callable[[str, list[types.Diagnostic], int | None], None]
    ) -> None:
        self.engine = engine
        self._send = send  # (uri, diagnostics, version): one publishDiagnostics notification
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._last_lint: dict[str, float] = {}
        self._cost: dict[str, float] = {}  # CPU seconds of the document's last lint after an edit
        self._published: dict[str, tuple[int | None, str]] = {}
        self.after_publish: Callable[[str], None] = lambda _uri: None
        self.stopped = False

    def delay(self, uri: str, *, immediate: bool) -> float:
        """Seconds to wait before linting `uri` after an edit (see module docstring)."""
        debounce = self.engine.settings.debounce_ms / 1000
        cost = self._cost.get(uri)
        if immediate or not debounce or cost is None or cost <= debounce * CHEAP_FRACTION:
            return 0.0
        quiet = time.monotonic() - self._last_lint.get(uri, float("-inf")) >= debounce
        return 0.0 if quiet else debounce

    def schedule(self, uri: str, *, immediate: bool = False) -> None:
        """Lint and push `uri` after `delay`; outside an event loop (unit tests), at once."""
        if self.engine.client.pull or self.stopped:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.publish(uri)
            return
        delay = self.delay(uri, immediate=immediate)
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()
        self._timers[uri] = loop.call_later(delay, self._fire, uri, immediate)

    def _fire(self, uri: str, immediate: bool = False) -> None:
        self._timers.pop(uri, None)
        started = time.thread_time()
        try:
            self.publish(uri)
        except Exception:
            log.exception("publishing diagnostics for %s failed", uri)
        self._last_lint[uri] = time.monotonic()
        if not immediate:  # an open's lint is cold (nothing cached yet): it says nothing about an edit's
            self._cost[uri] = time.thread_time() - started

    def publish(self, uri: str) -> None:
        """Push the document's diagnostics unless this version's result was pushed already."""
        doc = self.engine.docs.get(uri)
        if doc is None or self.engine.client.pull:
            return
        result = self.engine.result(doc)
        if self._published.get(uri) == (doc.version, result.result_id):
            return
        self._published[uri] = (doc.version, result.result_id)
        self._send(uri, list(result.items), doc.version)
        self.after_publish(uri)

    def clear(self, uri: str) -> None:
        """The document was closed: forget it and, if anything was pushed for it, push an empty list."""
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()
        self._last_lint.pop(uri, None)
        self._cost.pop(uri, None)
        self.engine.forget(uri)
        if not self.engine.client.pull and self._published.pop(uri, None) is not None:
            self._send(uri, [], None)

    def stop(self) -> None:
        self.stopped = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
