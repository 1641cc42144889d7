"""What keeps a fresh server's first diagnostics fast without changing them: a workspace without a config file is
linted with the defaults (pydantic never loads), code actions, hover and the commands (the whole rule table,
the suite hasher, verify) load at their first request, and live integrity's baseline search only for a
workspace with a registry.

Each test drives a fresh `python -m lsp_server` over stdio (started by `PROBE`, which writes the names of the
modules it loaded to a file when it exits). These check imports and messages, not timings (timings are
bench/lsp_latency.py's).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest

PROBE = """
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w", encoding="utf-8").write(json.dumps(sorted(sys.modules))))
from lsp_server.__main__ import main
sys.exit(main([]))
"""
# Loaded by none of: start-up, `initialize`, the warm-up, the first lint of an evaluator without a config file.
NOT_AT_START = (
    "pydantic",  # a workspace without a config file is linted with the defaults
    "core.config",
    "lsp_server.commands",  # code actions, hover, verify and fingerprint load at their first request
    "lsp_server.actions",
    "core.fixes",
    "core.rules.registry",  # the whole rule table (hover on a noqa code)
    "core.integrity.checks",
    "lsp_server.verify",
    "core.verify",
    "lsp_server.baseline",  # live integrity's baseline search: only a workspace with a registry
    "core.registry",
    "core.integrity.manifest",
    "ctypes",  # only `core.secrets.hide` writes memory
)
EVALUATOR = 'import sys\nprint("auc: 0.5")\n'
EVALUATOR_CODES = {"EV005", "EV007"}  # no fast mode, no result.json (see tests/core/test_check_startup.py)
TIMEOUT_S = 60


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _read_messages(stream: IO[bytes], into: queue.Queue[dict[str, Any] | None]) -> None:
    while True:
        length = 0
        while True:
            line = stream.readline()
            if not line:
                into.put(None)
                return
            if line == b"\r\n":
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        into.put(json.loads(stream.read(length)))


class Server:
    """A fresh server process under `PROBE`, spoken to like a client with no optional capabilities."""

    def __init__(self, workspace: Path, modules_file: Path) -> None:
        self.workspace, self.modules_file = workspace, modules_file
        self.proc = subprocess.Popen(
            [sys.executable, "-c", PROBE, str(modules_file)],
            cwd=workspace,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=_read_messages, args=(self.proc.stdout, self.messages), daemon=True).start()
        self.versions: dict[str, int] = {}
        self.latest: dict[str, list[dict[str, Any]]] = {}

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(_frame(message))
        self.stdin.flush()

    def next_message(self) -> dict[str, Any]:
        message = self.messages.get(timeout=TIMEOUT_S)
        assert message is not None, "the server closed its stdout"
        if "method" in message and "id" in message:  # a request to the client: answer it, keep reading
            self.send({"id": message["id"], "result": None})
        return message

    def start(self) -> None:
        """initialize, then initialized at once: the first didOpen follows without waiting."""
        root = self.workspace.as_uri()
        capabilities: dict[str, Any] = {"textDocument": {"publishDiagnostics": {"versionSupport": True}}}
        self.send(
            {"id": 1, "method": "initialize", "params": {"rootUri": root, "capabilities": capabilities}}
        )
        self.send({"method": "initialized", "params": {}})

    def open(self, relpath: str, text: str) -> str:
        uri = (self.workspace / relpath).as_uri()
        self.versions[uri] = 1
        item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": item}})
        return uri

    def change(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        params = {
            "textDocument": {"uri": uri, "version": self.versions[uri]},
            "contentChanges": [{"text": text}],
        }
        self.send({"method": "textDocument/didChange", "params": params})

    def pushed(self, uri: str, until: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
        """The diagnostics last pushed for `uri`, once `until` accepts them (pushes for other documents read
        meanwhile are kept)."""
        while uri not in self.latest or not until(self.latest[uri]):
            message = self.next_message()
            if message.get("method") == "textDocument/publishDiagnostics":
                self.latest[message["params"]["uri"]] = list(message["params"]["diagnostics"])
        return self.latest[uri]

    def stop(self) -> set[str]:
        """shutdown and exit; the modules the server had loaded."""
        self.send({"id": 99, "method": "shutdown"})
        while self.next_message().get("id") != 99:
            pass
        self.send({"method": "exit"})
        assert self.proc.wait(timeout=TIMEOUT_S) == 0
        return set(json.loads(self.modules_file.read_text(encoding="utf-8")))

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def codes(diagnostics: list[dict[str, Any]]) -> set[str]:
    return {str(d.get("code")) for d in diagnostics}


@pytest.fixture
def server(tmp_path: Path) -> Any:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)  # the workspace root; no config file
    (workspace / "kapso_evaluation").mkdir()
    (workspace / "kapso_evaluation" / "evaluate.py").write_text(EVALUATOR, encoding="utf-8")
    started = Server(workspace, tmp_path / "modules.json")
    yield started
    started.kill()


@pytest.mark.parametrize(
    "pyproject", [None, "[tool.ruff]\nline-length = 99\n"], ids=["none", "no-proctor-table"]
)
def test_first_diagnostics_without_a_config_file_load_no_pydantic_and_no_command_modules(
    server: Server, pyproject: str | None
) -> None:
    if pyproject is not None:  # a Python project's pyproject.toml without [tool.proctor] is no config file
        (server.workspace / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    server.start()
    uri = server.open("kapso_evaluation/evaluate.py", EVALUATOR)
    assert codes(server.pushed(uri, lambda found: bool(found))) >= EVALUATOR_CODES
    modules = server.stop()
    assert "core.rules.evaluator" in modules  # the lint ran in this process
    assert sorted(name for name in NOT_AT_START if name in modules) == []


@pytest.mark.parametrize(("name", "table"), [("proctor.toml", ""), ("pyproject.toml", "[tool.proctor]\n")])
def test_a_config_file_that_appears_later_is_validated_and_applied(
    server: Server, name: str, table: str
) -> None:
    server.start()
    evaluator = server.open("kapso_evaluation/evaluate.py", EVALUATOR)
    assert codes(server.pushed(evaluator, lambda found: bool(found))) >= EVALUATOR_CODES

    config = server.open(name, f"{table}metrik = 1\n")
    problems = server.pushed(config, lambda found: bool(found))
    assert [(d["code"], d["message"]) for d in problems] == [("CF001", "`metrik`: unknown key")]

    # Valid now, and it names another evaluator: kapso_evaluation/evaluate.py is only suite code from here on.
    server.change(config, f'{table}command = "python score.py"\n')
    assert server.pushed(config, lambda found: not found) == []
    assert (
        not codes(server.pushed(evaluator, lambda found: not EVALUATOR_CODES & codes(found)))
        & EVALUATOR_CODES
    )
    assert "pydantic" in server.stop()  # what the other test holds absent, this probe sees


GC_PROBE = """
import gc, json
from lsp_server import startup
during = []
gc.callbacks.append(lambda phase, info: during.append(info["generation"]) if phase == "stop" else None)
with startup.importing():
    import lsp_server.server
inside = list(during)
print(json.dumps({"during_import": inside, "enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
                  "freed_by_a_full_collection": gc.collect()}))
"""


def test_the_import_runs_without_collections_and_leaves_nothing_frozen() -> None:
    """`startup.importing`: no collection while the server is imported; afterwards the collector is on again,
    nothing stays frozen, and the import's garbage is freed by the next full collection (an idle one)."""
    done = subprocess.run(
        [sys.executable, "-c", GC_PROBE], capture_output=True, text=True, timeout=TIMEOUT_S, check=True
    )
    found = json.loads(done.stdout)
    assert found["during_import"] == []
    assert (found["enabled"], found["frozen"]) == (True, 0)
    assert found["freed_by_a_full_collection"] > 0
