"""Headless Chromium driven over the DevTools protocol on a pipe, for the dashboard's browser tests.

`--dump-dom` (tests/core/report/browser.py) opens one file; the dashboard needs more: an HTTP server, a bearer
header on every request, a login form submitted with its cookie kept, the document's HTTP status, every console
error and CSP violation, and a screenshot. Chromium speaks its DevTools protocol over file descriptors 3 (in)
and 4 (out) with `--remote-debugging-pipe`: NUL-terminated JSON messages, no extra package needed.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import queue
import signal
import threading
import time
from pathlib import Path
from typing import Any

from tests.core.report.browser import chromium

_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run")
TIMEOUT_S = 60.0
# What a page sees: the visible chart marks, the images and scripts that got in, the text.
PROBE = """(() => {
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  return {
    marks: [...document.querySelectorAll("svg.scores .mark")].filter(visible).map(
      (m) => m.getAttribute("aria-label") || ""),
    images: document.images.length,
    scripts: document.scripts.length,
    pwned: window.__pwned || 0,
    title: document.title,
    path: location.pathname,
    text: document.body ? document.body.innerText : "",
    cookie: (() => { try { return document.cookie; } catch (e) { return null; } })(),
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  };
})()"""


def _high(fd: int) -> int:
    """A copy of `fd` far above 3 and 4, so moving the pipe ends onto 3 and 4 cannot clobber each other."""
    copy = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100)
    os.close(fd)
    return copy


class Browser:
    """One headless Chromium; `page()` opens a tab in a fresh browser context (its own cookies)."""

    def __init__(self, tmp: Path) -> None:
        tmp.mkdir(parents=True, exist_ok=True)
        binary = chromium()
        to_chrome_r, self._to_chrome = (_high(fd) for fd in os.pipe())
        self._from_chrome, from_chrome_w = (_high(fd) for fd in os.pipe())
        log = os.open(tmp / "chromium.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        args = [
            binary,
            *_FLAGS,
            "--remote-debugging-pipe",
            f"--user-data-dir={tmp / 'profile'}",
            "about:blank",
        ]
        self.pid = os.posix_spawn(
            binary,
            args,
            {**os.environ, "HOME": str(tmp)},
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, log, 1),
                (os.POSIX_SPAWN_DUP2, log, 2),
                (os.POSIX_SPAWN_DUP2, to_chrome_r, 3),
                (os.POSIX_SPAWN_DUP2, from_chrome_w, 4),
            ],
        )
        for fd in (log, to_chrome_r, from_chrome_w):
            os.close(fd)
        self._next_id = 0
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buffer = b""
        while chunk := os.read(self._from_chrome, 1 << 16):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for message in messages:
                self._inbox.put(json.loads(message))
        self._inbox.put(None)

    def _take(self, deadline: float) -> dict[str, Any]:
        try:
            message = self._inbox.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError("chromium did not answer in time") from None
        if message is None:
            raise RuntimeError("chromium closed its DevTools pipe")
        return message

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        """Call one DevTools method and return its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            reply = self._take(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, session: str, since: int) -> dict[str, Any]:
        """The first event `method` of `session` at or after index `since` of `events`."""
        deadline = time.monotonic() + TIMEOUT_S
        index = since
        while True:
            while index < len(self.events):
                event = self.events[index]
                index += 1
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            self.events.append(self._take(deadline))

    def page(self, width: int = 1200, height: int = 900) -> Page:
        context = self.send("Target.createBrowserContext")["browserContextId"]
        target = self.send("Target.createTarget", {"url": "about:blank", "browserContextId": context})
        session = self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        page = Page(self, session["sessionId"])
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=page.session)
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self.send("Emulation.setDeviceMetricsOverride", metrics, page.session)
        return page

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.send("Browser.close")
        deadline = time.monotonic() + 10
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
        self._reader.join(timeout=5)
        os.close(self._to_chrome)
        os.close(self._from_chrome)


class Page:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser, self.session = browser, session

    def _mine(self, since: int) -> list[dict[str, Any]]:
        return [e for e in self.browser.events[since:] if e.get("sessionId") == self.session]

    def headers(self, headers: dict[str, str]) -> None:
        self.browser.send("Network.setExtraHTTPHeaders", {"headers": headers}, self.session)

    def _loaded(self, since: int) -> Visit:
        self.browser.wait_event("Page.loadEventFired", self.session, since)
        time.sleep(0.2)  # late console messages of the load
        self.evaluate("0")  # drains what arrived meanwhile
        events = self._mine(since)
        documents = [
            e["params"]["response"]["status"]
            for e in events
            if e.get("method") == "Network.responseReceived" and e["params"].get("type") == "Document"
        ]
        return Visit(documents[-1] if documents else 0, _errors(events), self.evaluate(PROBE))

    def goto(self, url: str) -> Visit:
        """Navigate, wait for `load`, and report the document's status, the errors and the probe."""
        since = len(self.browser.events)
        result = self.browser.send("Page.navigate", {"url": url}, self.session)
        assert not result.get("errorText"), result
        return self._loaded(since)

    def submit(self, script: str) -> Visit:
        """Run `script` (which submits a form) and report the page it leads to."""
        since = len(self.browser.events)
        self.evaluate(script)
        return self._loaded(since)

    def evaluate(self, expression: str) -> Any:
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        answer = self.browser.send("Runtime.evaluate", params, self.session)
        assert "exceptionDetails" not in answer, answer["exceptionDetails"]
        return answer["result"].get("value")

    def screenshot(self, out: Path) -> Path:
        data = self.browser.send("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        out.write_bytes(base64.b64decode(data))
        return out


class Visit:
    def __init__(self, status: int, errors: list[str], seen: dict[str, Any]) -> None:
        self.status, self.errors, self.seen = status, errors, seen


def _errors(events: list[dict[str, Any]]) -> list[str]:
    """Console errors, uncaught exceptions and browser log errors (CSP violations, failed loads)."""
    found = []
    for event in events:
        params = event.get("params", {})
        match event.get("method"):
            case "Runtime.consoleAPICalled" if params.get("type") in ("error", "assert"):
                found.append("console: " + " ".join(str(a.get("value", "")) for a in params.get("args", [])))
            case "Runtime.exceptionThrown":
                found.append("exception: " + str(params.get("exceptionDetails", {}).get("text", "")))
            case "Log.entryAdded" if params.get("entry", {}).get("level") == "error":
                found.append("log: " + str(params["entry"].get("text", "")))
    return found
