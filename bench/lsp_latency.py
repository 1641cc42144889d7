"""Editor latency (SPEC §11): didOpen→diagnostics and didChange→diagnostics over stdio on a generated
1,000-line evaluator, Proctor side by side with pylsp + pyflakes (undebounced, and as shipped with its 0.5 s
debounce) and ruff's server, in one run, with the ratios.

    .venv/bin/python bench/lsp_latency.py [--changes 60] [--opens 20] [--gap-ms 100] [--json]

Every server gets the same file and the same edits from the same minimal client (no pygls on the client side,
so the client costs the same for all). Edits are spaced `--gap-ms` apart (a fast typist): the time measured
is from writing the notification to reading the first diagnostics that reflect *that* edit: a push for that
document version (push), or the `textDocument/diagnostic` answer (pull, what VS Code and Neovim ≥ 0.10 use).

"Reflect that edit" is checked on content, not trusted: the edited line is `THRESHOLD = <pad>random.random()
+ undefined_NNNN`, with a pad and a name that change with every edit. Proctor flags the unseeded call
(EV009), pyflakes and ruff the undefined name; each server's diagnostics on that line must sit at this
edit's columns and name this edit's name. A publish or answer that does not (stale, empty, or from a
mangled buffer) is counted as rejected and the clock keeps running; a server that never delivers fails the
run. Edits replace the exact line range (no past-the-end columns, which pylsp's incremental sync mishandles).

Targets: Proctor didChange→diagnostics median ≤ 10 ms, p95 ≤ 25 ms, ≥ 3× faster than pylsp undebounced.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
PYLSP_UNDEBOUNCED = (
    "import pylsp.python_lsp as m\n"
    "m.PythonLSPServer.lint = m.PythonLSPServer.lint.__wrapped__  # drop the 0.5 s debounce decorator\n"
    "from pylsp.__main__ import main\n"
    "main()\n"
)
PYLSP_SETTINGS = {
    "pylsp": {
        "plugins": {
            name: {"enabled": name == "pyflakes"}
            for name in (
                "pyflakes",
                "pycodestyle",
                "mccabe",
                "pydocstyle",
                "pylint",
                "flake8",
                "autopep8",
                "yapf",
                "rope_autoimport",
                "rope_completion",
            )
        }
    }
}


EDIT_PREFIX = "THRESHOLD = "
CALL = "random.random()"
PADS = 8  # the pad cycles through 0..7 spaces: a result up to 7 edits stale sits at the wrong column


def edited_line(pad: int, name: str) -> str:
    """The line every edit rewrites: an unseeded call (Proctor's EV009) plus an undefined name (pyflakes, ruff)."""
    return f"{EDIT_PREFIX}{' ' * pad}{CALL} + undefined_{name}"


def reflects(diagnostics: list[dict[str, Any]], line: int, pad: int, name: str) -> bool:
    """True when the diagnostics on the edited line are exactly those of this edit (see module docstring)."""
    call_at = len(EDIT_PREFIX) + pad
    columns = {call_at, call_at + len(CALL) + len(" + ")}
    found = [d for d in diagnostics if d["range"]["start"]["line"] == line]
    if not found:
        return False
    for diagnostic in found:
        if diagnostic["range"]["start"]["character"] not in columns:
            return False
        message = str(diagnostic.get("message", ""))
        if "undefined_" in message and f"undefined_{name}" not in message:
            return False
    return True


def generate_evaluator(lines: int = 1000) -> str:
    """A realistic contract-following evaluator padded with helper functions to `lines` lines."""
    head = [
        '"""Churn evaluator: trains nothing, scores the candidate\'s predictions, prints `auc: <value>` last."""',
        "import argparse",
        "import json",
        "import math",
        "import random",
        "import subprocess",
        "import sys",
        "",
        "SEED = 42",
        edited_line(0, "open"),
        "",
    ]
    tail = [
        "",
        "",
        "def main() -> None:",
        "    parser = argparse.ArgumentParser()",
        '    parser.add_argument("--fast", action="store_true")',
        "    args = parser.parse_args()",
        '    done = subprocess.run([sys.executable, "-m", "candidate.predict"], capture_output=True, text=True)',
        "    if done.returncode != 0:",
        '        print(f"candidate failed: {done.stderr[-200:]}", file=sys.stderr)',
        "        sys.exit(1)",
        "    rows = 100 if args.fast else 1000",
        "    scores = [helper_0(i / rows) for i in range(rows)]",
        "    auc = sum(scores) / len(scores)",
        '    with open("kapso_evaluation/result.json", "w") as handle:',
        '        json.dump({"evaluation_script_path": __file__, "evaluation_output": done.stdout, "score": auc}, handle)',
        '    print(f"auc: {auc:.4f}")',
        "",
        "",
        'if __name__ == "__main__":',
        "    main()",
    ]
    body: list[str] = []
    index = 0
    while len(head) + len(body) + len(tail) + 11 <= lines:
        body += [
            "",
            "",
            f"def helper_{index}(value: float) -> float:",
            f'    """Step {index} of the score transform (kept pure: same input, same output)."""',
            f"    scaled = value * {index + 1} / {index + 2}",
            "    if scaled > THRESHOLD:",
            "        scaled = math.sqrt(scaled)",
            "    total = 0.0",
            "    for step in range(3):",
            "        total += scaled / (step + 1)",
            "    return total",
        ]
        index += 1
    body += [f"# helpers end here ({index} of them)"] * (lines - len(head) - len(body) - len(tail))
    return "\n".join(head + body + tail) + "\n"


class Client:
    """The smallest LSP client that can drive a server over stdio and time its answers."""

    def __init__(self, argv: list[str], cwd: Path, settings: dict[str, Any] | None = None) -> None:
        self.argv, self.cwd, self.settings = argv, cwd, settings or {}
        self.proc: asyncio.subprocess.Process | None = None
        self._next = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self.published: list[tuple[float, str, int | None, list[dict[str, Any]]]] = []
        self._publish_event = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def start(self, capabilities: dict[str, Any], init_options: Any = None) -> dict[str, Any]:
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            cwd=self.cwd,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=1 << 24,
        )
        self._reader = asyncio.create_task(self._read())
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": self.cwd.as_uri(),
                "workspaceFolders": [{"uri": self.cwd.as_uri(), "name": "bench"}],
                "capabilities": capabilities,
                "initializationOptions": init_options,
            },
        )
        self.notify("initialized", {})
        if self.settings:
            self.notify("workspace/didChangeConfiguration", {"settings": self.settings})
        return dict(result)

    def _write(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any) -> Any:
        self._next += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[self._next] = future
        self._write({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        return await asyncio.wait_for(future, 60)

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        while True:
            length = 0
            while True:
                line = await stdout.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            message = json.loads(await stdout.readexactly(length))
            now = time.perf_counter()
            if "method" in message and "id" in message:
                self._answer(message)
            elif "method" in message:
                if message["method"] == "textDocument/publishDiagnostics":
                    params = message["params"]
                    self.published.append((now, params["uri"], params.get("version"), params["diagnostics"]))
                    self._publish_event.set()
            elif message.get("id") in self._waiting:
                future = self._waiting.pop(message["id"])
                if not future.done():
                    future.set_result(message.get("result", message.get("error")))

    def _answer(self, message: dict[str, Any]) -> None:
        method, params = message["method"], message.get("params") or {}
        result: Any = None
        if method == "workspace/configuration":
            result = [self.settings.get(item.get("section", ""), None) for item in params.get("items", [])]
        self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})

    async def published_at(
        self, uri: str, version: int, after: int, accept: Callable[[list[dict[str, Any]]], bool]
    ) -> tuple[float, int]:
        """When the first push for `uri` at `version` (or with no version) that `accept`s arrived, counting
        only pushes from index `after` on; and how many pushes for `uri` were rejected before it."""
        rejected = 0
        index = after
        while True:
            while index < len(self.published):
                at, pushed_uri, pushed_version, diagnostics = self.published[index]
                index += 1
                if pushed_uri != uri:
                    continue
                if pushed_version in (version, None) and accept(diagnostics):
                    return at, rejected
                rejected += 1
            self._publish_event.clear()
            await asyncio.wait_for(self._publish_event.wait(), 30)

    async def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.request("shutdown", None), 10)
            self.notify("exit", None)
            await asyncio.wait_for(self.proc.wait(), 10)
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        if self._reader is not None:
            self._reader.cancel()


@dataclass
class Server:
    name: str
    argv: list[str]
    pull: bool = False
    settings: dict[str, Any] = field(default_factory=dict)
    init_options: Any = None


@dataclass
class Result:
    name: str
    open_ms: list[float]
    change_ms: list[float]
    rejected: int = 0  # pushes or pull answers that did not reflect the edit they followed


def capabilities(pull: bool) -> dict[str, Any]:
    text: dict[str, Any] = {
        "synchronization": {"didSave": True},
        "publishDiagnostics": {
            "relatedInformation": True,
            "versionSupport": True,
            "codeDescriptionSupport": True,
        },
    }
    if pull:
        text["diagnostic"] = {"dynamicRegistration": False}
    return {
        "textDocument": text,
        "workspace": {"configuration": True, "diagnostics": {"refreshSupport": True}},
        "general": {"positionEncodings": ["utf-16"]},
    }


async def measure(
    server: Server, workspace: Path, path: Path, opens: int, changes: int, gap_s: float
) -> Result:
    client = Client(server.argv, workspace, server.settings)
    await client.start(capabilities(server.pull), server.init_options)
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8")
    line = next(i for i, each in enumerate(text.splitlines()) if each.startswith(EDIT_PREFIX))
    current = text.splitlines()[line]
    version = 0
    rejected = 0

    async def diagnostics_after(send: Callable[[], None], pad: int, name: str) -> float:
        nonlocal rejected

        def accept(diagnostics: list[dict[str, Any]]) -> bool:
            return reflects(diagnostics, line, pad, name)

        after = len(client.published)
        started = time.perf_counter()
        send()
        if not server.pull:
            at, dropped = await client.published_at(uri, version, after, accept)
            rejected += dropped
            return (at - started) * 1000
        for _ in range(100):
            answer = await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
            if isinstance(answer, dict) and accept(list(answer.get("items") or [])):
                return (time.perf_counter() - started) * 1000
            rejected += 1
        raise RuntimeError(f"{server.name}: no pull answer reflects version {version}")

    open_ms: list[float] = []
    for _ in range(opens + 1):
        version += 1
        item = {"uri": uri, "languageId": "python", "version": version, "text": text}
        took = await diagnostics_after(
            lambda item=item: client.notify("textDocument/didOpen", {"textDocument": item}), 0, "open"
        )
        open_ms.append(took)
        await asyncio.sleep(gap_s)
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        await asyncio.sleep(gap_s)
    version += 1
    item = {"uri": uri, "languageId": "python", "version": version, "text": text}
    await diagnostics_after(lambda: client.notify("textDocument/didOpen", {"textDocument": item}), 0, "open")
    change_ms: list[float] = []
    for index in range(changes + 1):
        await asyncio.sleep(gap_s)
        version += 1
        pad, name = (index + 1) % PADS, f"{index:04d}"
        replacement = edited_line(pad, name)
        params = {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [
                {
                    "range": {
                        "start": {"line": line, "character": len(EDIT_PREFIX)},
                        "end": {"line": line, "character": len(current)},
                    },
                    "text": replacement[len(EDIT_PREFIX) :],
                }
            ],
        }
        current = replacement
        change_ms.append(
            await diagnostics_after(lambda p=params: client.notify("textDocument/didChange", p), pad, name)
        )
    await client.stop()
    # The first of each series warms caches up.
    return Result(server.name, open_ms[1:], change_ms[1:], rejected)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def servers() -> list[Server]:
    python = sys.executable
    found = [
        Server("proctor (pull)", [python, "-m", "lsp_server"], pull=True),
        Server("proctor (push, as shipped)", [python, "-m", "lsp_server"]),
        Server("proctor (push, debounceMs 0)", [python, "-m", "lsp_server"], init_options={"debounceMs": 0}),
        Server("pylsp+pyflakes (undebounced)", [python, "-c", PYLSP_UNDEBOUNCED], settings=PYLSP_SETTINGS),
        Server("pylsp+pyflakes (as shipped)", [python, "-m", "pylsp"], settings=PYLSP_SETTINGS),
    ]
    ruff = shutil.which("ruff", path=str(BIN)) or shutil.which("ruff")
    if ruff:
        found.append(Server("ruff server (reference)", [ruff, "server"]))
        found.append(Server("ruff server (pull)", [ruff, "server"], pull=True))
    return found


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="proctor-lsp-bench-") as scratch:
        workspace = Path(scratch)
        (workspace / ".git").mkdir()
        (workspace / "kapso_evaluation").mkdir()
        path = workspace / "kapso_evaluation" / "evaluate.py"
        source = generate_evaluator(1000)
        path.write_text(source, encoding="utf-8")
        (workspace / "brief.md").write_text(
            "# Goal\nauc above 0.85\n\nMeasured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 "
            "split with seed 42, printed as `auc: <value>`.\n",
            encoding="utf-8",
        )
        results = []
        for server in servers():
            if server.name.endswith("(as shipped)") and server.name.startswith("pylsp") and args.changes > 20:
                opens, changes = min(args.opens, 10), 20  # 0.5 s a sample: fewer samples, same median
            else:
                opens, changes = args.opens, args.changes
            print(f"… {server.name}", file=sys.stderr, flush=True)
            results.append(await measure(server, workspace, path, opens, changes, args.gap_ms / 1000))
    return report(results, len(source.splitlines()))


def report(results: list[Result], lines: int) -> dict[str, Any]:
    rows = {
        r.name: {
            "open_median_ms": statistics.median(r.open_ms),
            "open_p95_ms": p95(r.open_ms),
            "change_median_ms": statistics.median(r.change_ms),
            "change_p95_ms": p95(r.change_ms),
            "samples": len(r.change_ms),
            "rejected": r.rejected,
        }
        for r in results
    }
    pylsp = rows["pylsp+pyflakes (undebounced)"]["change_median_ms"]
    proctor = {name: row for name, row in rows.items() if name.startswith("proctor")}
    verdicts = {
        name: {
            "median_ok": row["change_median_ms"] <= 10,
            "p95_ok": row["change_p95_ms"] <= 25,
            "speedup_vs_pylsp_undebounced": pylsp / row["change_median_ms"],
            "speedup_ok": pylsp / row["change_median_ms"] >= 3,
        }
        for name, row in proctor.items()
    }
    return {"lines": lines, "servers": rows, "proctor_targets": verdicts}


def render(data: dict[str, Any]) -> str:
    out = [f"LSP latency on a {data['lines']}-line evaluator (ms; stdio; median / p95)", ""]
    out.append(
        f"{'server':32} {'didOpen med':>11} {'p95':>8} {'didChange med':>14} {'p95':>8} {'rejected':>9}"
    )
    for name, row in data["servers"].items():
        out.append(
            f"{name:32} {row['open_median_ms']:11.1f} {row['open_p95_ms']:8.1f} "
            f"{row['change_median_ms']:14.1f} {row['change_p95_ms']:8.1f} {row['rejected']:9d}"
        )
    out.append(
        "(rejected: pushes/answers that did not reflect the edit they followed; the clock kept running)"
    )
    out.append("")
    rows = data["servers"]
    for name, verdict in data["proctor_targets"].items():
        row = rows[name]
        marks = " ".join(
            f"{label} {'ok' if verdict[key] else 'MISSED'}"
            for label, key in (
                ("median<=10", "median_ok"),
                ("p95<=25", "p95_ok"),
                (">=3x pylsp", "speedup_ok"),
            )
        )
        out.append(
            f"{name}: {verdict['speedup_vs_pylsp_undebounced']:.1f}x faster than pylsp undebounced "
            f"(median {row['change_median_ms']:.1f} ms) — {marks}"
        )
    ruff = rows.get("ruff server (reference)")
    shipped = rows.get("pylsp+pyflakes (as shipped)")
    best = min((r["change_median_ms"] for n, r in rows.items() if n.startswith("proctor")), default=0.0)
    if ruff and best:
        out.append(f"ruff server / proctor (best mode) median ratio: {ruff['change_median_ms'] / best:.2f}")
    if shipped and best:
        out.append(
            f"pylsp as shipped / proctor (best mode) median ratio: {shipped['change_median_ms'] / best:.1f}"
        )
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=60, help="didChange samples per server")
    parser.add_argument("--opens", type=int, default=20, help="didOpen samples per server")
    parser.add_argument("--gap-ms", type=float, default=100, help="pause between edits (a fast typist)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    data = asyncio.run(run(args))
    print(json.dumps(data, indent=2) if args.json else render(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
