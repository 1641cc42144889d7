"""Open a report in headless Chromium (Debian's `chromium`) and read back what a user's browser saw.

A probe script is added to a copy of the page (allowed by its own hash in the page's Content-Security-Policy):
it records script errors and CSP violations, measures horizontal overflow, lists the visible chart marks and
the scoreboard rows, clicks the `candidate` sort button, and writes all of it as JSON into the DOM, which
`--dump-dom` prints. The report itself is not changed.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

PROBE = """
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push("error: " + e.message); });
document.addEventListener("securitypolicyviolation", function (e) {
  window.__errors.push("csp: " + e.violatedDirective + " " + e.blockedURI);
});
var realError = console.error;
console.error = function () { window.__errors.push("console: " + [].join.call(arguments, " ")); };
function visible(el) { var r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; }
function rows() {
  return [].slice.call(document.querySelectorAll("#board tbody.cand")).map(function (b) {
    return {ref: b.getAttribute("data-ref"), group: b.getAttribute("data-group"),
            score: b.getAttribute("data-score"), visible: visible(b)};
  });
}
window.addEventListener("load", function () { setTimeout(function () {
  var d = document.documentElement;
  var out = {
    errors: window.__errors, scrollWidth: d.scrollWidth, innerWidth: window.innerWidth,
    marks: [].slice.call(document.querySelectorAll("svg.scores .mark")).filter(visible).map(function (m) {
      return {ref: m.getAttribute("data-ref"), kind: m.getAttribute("class"), label: m.getAttribute("aria-label")};
    }),
    rows: rows(),
    imgs: document.querySelectorAll("img").length,
    scripts: document.scripts.length,
    pwned: window.__pwned || 0,
    text: document.body.innerText,
    buttons: document.querySelectorAll("#board thead th button").length
  };
  var button = [].slice.call(document.querySelectorAll("#board thead th[data-key=ref] button"))[0];
  if (button) { button.click(); out.sortedByRef = rows().map(function (r) { return r.ref; }); }
  var host = window.parent.document;
  var pre = host.createElement("pre");
  pre.id = "__probe";
  pre.textContent = JSON.stringify(out);
  host.body.appendChild(pre);
}, 0); });
"""
_PROBE_HASH = "sha256-" + base64.b64encode(hashlib.sha256(PROBE.encode()).digest()).decode()
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run")


def chromium() -> str:
    """The chromium binary; skipped with the reason when missing, a failure in CI."""
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is required in CI (.ci/run installs the Debian package `chromium`)")
        pytest.skip(
            "chromium is not installed (Debian package `chromium`): the report is not opened in a browser"
        )
    return path


def _run(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(tmp)}  # chromium writes its profile and crash dumps under HOME
    return subprocess.run(
        [chromium(), *_FLAGS, f"--user-data-dir={tmp / 'profile'}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def probe(page: str, width: int, tmp: Path) -> dict[str, Any]:
    """Load `page` at `width` px and return what the probe measured."""
    tmp.mkdir(parents=True, exist_ok=True)
    marker = "script-src "
    assert marker in page, "the report must carry a Content-Security-Policy with script-src"
    probed = page.replace(marker, f"{marker}'{_PROBE_HASH}' ", 1).replace(
        "<head>", f"<head><script>{PROBE}</script>", 1
    )
    # Headless windows are at least 500 px wide: the page gets its exact width from an iframe around it.
    frame = (
        f'<!DOCTYPE html><html><body style="margin:0"><iframe style="border:0;width:{width}px;height:900px" '
        f'srcdoc="{html.escape(probed, quote=True)}"></iframe></body></html>'
    )
    path = tmp / f"probe-{width}.html"
    path.write_text(frame, encoding="utf-8")
    done = _run(
        [f"--window-size={width},900", "--virtual-time-budget=5000", "--dump-dom", path.as_uri()], tmp
    )
    start = done.stdout.find('<pre id="__probe">')
    assert start >= 0, f"the probe did not report (chromium exit {done.returncode}): {done.stderr[-2000:]}"
    end = done.stdout.index("</pre>", start)
    data: dict[str, Any] = json.loads(html.unescape(done.stdout[start + len('<pre id="__probe">') : end]))
    return data


def screenshot(page_path: Path, width: int, out: Path) -> Path:
    """A PNG of the top of the page at `width` px (the test artifact a person looks at)."""
    done = _run([f"--window-size={width},1600", f"--screenshot={out}", page_path.as_uri()], out.parent)
    assert out.is_file() and out.stat().st_size > 1000, done.stderr[-2000:]
    return out
