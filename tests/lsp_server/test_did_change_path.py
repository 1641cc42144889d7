"""The fast path of didChange and of a pull (`lsp_server.messages`, `ProctorProtocol.handle_message`) behaves as
pygls' own path: the same message objects read from the same bytes (or the same error), and over stdio the same
results for incremental, whole and coerced changes, malformed ones, a wrong JSON-RPC version, pulls (full,
unchanged, unknown document, string ids) and messages after shutdown."""

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

from lsp_server import messages
from lsp_server.server import server
from tests.lsp_server.conftest import write_workspace

SERVER = [sys.executable, "-m", "lsp_server"]
# A marker line the evaluator lint flags (EV009, an unseeded random call) wherever it stands.
MARKER = "NOISE = random.random()"
TEXT = '"""Evaluator."""\nimport random\n\nSEED = 1\n'


def frame(message: dict[str, Any] | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def position(line: Any, character: Any) -> dict[str, Any]:
    return {"line": line, "character": character}


def did_change(uri: str, version: Any, *changes: dict[str, Any], jsonrpc: Any = "2.0") -> dict[str, Any]:
    return {
        "jsonrpc": jsonrpc,
        "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": list(changes)},
    }


def pull(msg_id: Any, uri: Any, **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": msg_id,
        "method": "textDocument/diagnostic",
        "params": {"textDocument": {"uri": uri}, **params},
    }


def insert(line: Any, text: str) -> dict[str, Any]:
    return {"range": {"start": position(line, 0), "end": position(line, 0)}, "text": text}


# -- the same objects as pygls reads ------------------------------------------------------------------------------

_URI = "file:///ws/kapso_evaluation/evaluate.py"
_RANGE = {"start": position(1, 2), "end": position(3, 4)}
SAME_AS_PYGLS: list[Any] = [
    did_change(_URI, 3, {"range": _RANGE, "text": "x"}),
    did_change(_URI, 3, {"range": _RANGE, "rangeLength": 5, "text": "x"}),
    did_change(_URI, 3, {"text": "whole"}, {"range": _RANGE, "text": "x"}),
    did_change(_URI, 3),
    did_change(_URI, 3, {"range": _RANGE, "text": "x"}, jsonrpc="1.0"),
    # values cattrs coerces: pygls' reading is kept
    did_change(_URI, 3, {"range": {"start": position(True, 2), "end": position("3", 4.0)}, "text": "x"}),
    did_change(_URI, 3.0, {"text": "x"}),
    did_change(_URI, 3, {"text": "x"}, jsonrpc=2),
    did_change(_URI, 3, {"range": _RANGE, "rangeLength": None, "text": "x"}),
    # extra keys cattrs ignores, and an object with "jsonrpc" inside (pygls structures it as a message)
    {**did_change(_URI, 3, {"text": "x"}), "extra": 1},
    did_change(_URI, 3, {"range": {**_RANGE, "extra": 1}, "text": "x"}),
    did_change(_URI, 3, {"text": "x", "jsonrpc": "2.0"}),
    # what cattrs rejects: the same error
    did_change(_URI, 3, {"range": {"start": position(-1, 0), "end": position(0, 0)}, "text": "x"}),
    did_change(_URI, 3, {"range": None, "text": "x"}),
    did_change(_URI, None, {"text": "x"}),
    did_change(_URI, 2**40, {"text": "x"}),
    did_change(_URI, 3, {"range": _RANGE}),
    did_change(None, 3, {"text": "x"}),
    {"jsonrpc": "2.0", "method": "textDocument/didChange"},
    {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": []},
    # pulls
    pull(5, _URI),
    pull("abc", _URI, previousResultId="0123", identifier="proctor"),
    pull(True, _URI),
    pull(5.0, _URI),
    pull(None, _URI),
    pull(5, _URI, previousResultId=None),
    pull(5, _URI, previousResultId=7),
    pull(5, _URI, workDoneToken="t"),
    pull(5, 12),
    {**pull(5, _URI), "extra": 1},
    {"jsonrpc": "2.0", "id": 5, "method": "textDocument/diagnostic", "params": {}},
    # not a didChange notification or a pull at all
    {**did_change(_URI, 3, {"text": "x"}), "id": 7},
    {"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"textDocument": {"uri": _URI}}},
    [1, 2],
    b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": ',
]


def _read(body: bytes, read: Callable[[bytes], Any]) -> tuple[str, Any]:
    try:
        return "ok", read(body)
    except Exception as error:
        return "error", (type(error), str(error), type(error.__cause__))


@pytest.mark.parametrize("message", SAME_AS_PYGLS, ids=range(len(SAME_AS_PYGLS)))
def test_a_body_reads_as_pygls_reads_it(message: Any) -> None:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    structure = server.protocol.structure_message
    ours = _read(body, lambda data: messages.read_body(data, structure))
    pygls = _read(body, lambda data: json.loads(data, object_hook=structure))
    assert ours == pygls
    if ours[0] == "ok":
        assert type(ours[1]) is type(pygls[1])
        changes = getattr(getattr(ours[1], "params", None), "content_changes", None)
        assert type(changes) is type(getattr(getattr(pygls[1], "params", None), "content_changes", None))


def test_the_plain_shape_is_read_without_pygls() -> None:
    """The fast path is taken for what an editor sends (else the test above proves nothing about it)."""
    data = did_change(_URI, 3, {"range": _RANGE, "text": "x"}, {"text": "whole"})
    read = messages.structure_did_change(data)
    assert read is not None
    assert read == server.protocol.structure_message(json.loads(json.dumps(data)))
    request = pull("x", _URI, previousResultId="01")
    assert messages.structure_diagnostic_request(request) == server.protocol.structure_message(request)


# -- over stdio ----------------------------------------------------------------------------------------------------


class Wire:
    """A real server on a pipe, every message it sends collected by a reader thread."""

    def __init__(self, root: Path, capabilities: dict[str, Any] | None = None) -> None:
        self.proc = subprocess.Popen(
            SERVER, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"capabilities": capabilities or {}, "rootUri": root.as_uri(), "processId": None},
            }
        )
        self.wait(lambda m: m.get("id") == 1)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            self.received.put(json.loads(stream.read(length)))

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(message))
        self.proc.stdin.flush()

    def wait(self, accept: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        while True:
            message = self.received.get(timeout=timeout)
            if accept(message):
                return message

    def published(self, uri: str, version: int) -> list[dict[str, Any]]:
        """The diagnostics pushed for `uri` at `version` (every other push on the way is skipped)."""
        found = self.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and m["params"].get("version") == version
            )
        )
        return list(found["params"]["diagnostics"])

    def finish(self) -> str:
        """Shut down and exit; the server's log."""
        self.send({"jsonrpc": "2.0", "id": 99, "method": "shutdown"})
        self.wait(lambda m: m.get("id") == 99)
        self.send({"jsonrpc": "2.0", "method": "exit"})
        assert self.proc.wait(timeout=30) == 0
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode()


def marker_lines(diagnostics: list[dict[str, Any]]) -> list[int]:
    return sorted(d["range"]["start"]["line"] for d in diagnostics if d.get("code") == "EV009")


@pytest.fixture
def wire(tmp_path: Path) -> Any:
    root = write_workspace(tmp_path / "ws")
    path = root / "kapso_evaluation" / "evaluate.py"
    path.write_text(TEXT, encoding="utf-8")
    wire = Wire(root)
    uri = path.as_uri()
    wire.send(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": TEXT}},
        }
    )
    assert marker_lines(wire.published(uri, 1)) == []
    wire.uri = uri  # type: ignore[attr-defined]
    yield wire
    if wire.proc.poll() is None:
        wire.proc.kill()
        wire.proc.wait()


def test_incremental_and_whole_changes_are_applied_in_order_with_their_versions(wire: Wire) -> None:
    uri: str = wire.uri  # type: ignore[attr-defined]
    wire.send(did_change(uri, 2, insert(3, MARKER + "\n")))
    assert marker_lines(wire.published(uri, 2)) == [3]
    wire.send(did_change(uri, 3, insert(0, "\n\n"), insert(0, "# one\n")))  # lines shift: 3 + 2 + 1
    assert marker_lines(wire.published(uri, 3)) == [6]
    wire.send(did_change(uri, 4, {"text": TEXT + MARKER + "\n"}, insert(0, "# top\n")))
    assert marker_lines(wire.published(uri, 4)) == [5]
    replaced = {"range": {"start": position(5, 0), "end": position(5, len(MARKER))}, "rangeLength": 23}
    wire.send(did_change(uri, 5, {**replaced, "text": "SEED = 2"}))
    assert marker_lines(wire.published(uri, 5)) == []
    assert "Traceback" not in wire.finish()


def test_a_malformed_or_coerced_change_is_handled_as_pygls_does_and_the_server_lives(wire: Wire) -> None:
    uri: str = wire.uri  # type: ignore[attr-defined]
    wire.send(did_change(uri, 2, insert(-1, MARKER + "\n")))  # cattrs rejects a negative line
    wire.send(did_change(uri, 3, {"range": None, "text": MARKER}))
    wire.send(b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {')
    wire.send(did_change(uri, 4, insert("3", MARKER + "\n")))  # cattrs reads "3" as 3: pygls applies it
    assert marker_lines(wire.published(uri, 4)) == [3]
    log = wire.finish()
    assert log.count("Unable to deserialize message") == 2
    assert log.count("Unable to handle message") == 3


def test_a_change_with_another_jsonrpc_version_is_dropped(wire: Wire) -> None:
    uri: str = wire.uri  # type: ignore[attr-defined]
    wire.send(did_change(uri, 2, insert(3, MARKER + "\n"), jsonrpc="1.0"))
    wire.send(did_change(uri, 3, insert(0, "# top\n")))
    assert marker_lines(wire.published(uri, 3)) == []  # the dropped marker never arrived
    assert "Unknown message" in wire.finish()


def test_a_change_after_shutdown_is_dropped(wire: Wire) -> None:
    uri: str = wire.uri  # type: ignore[attr-defined]
    wire.send({"jsonrpc": "2.0", "id": 50, "method": "shutdown"})
    wire.wait(lambda m: m.get("id") == 50)
    wire.send(did_change(uri, 2, insert(3, MARKER + "\n")))
    wire.send(
        {
            "jsonrpc": "2.0",
            "id": 51,
            "method": "textDocument/diagnostic",
            "params": {"textDocument": {"uri": uri}},
        }
    )
    wire.send({"jsonrpc": "2.0", "method": "exit"})
    assert wire.proc.wait(timeout=30) == 0
    assert wire.proc.stderr is not None
    log = wire.proc.stderr.read().decode()
    assert log.count("Server shutting down. No more requests!") == 2  # the change and the request
    assert wire.received.empty() or all(m.get("id") != 51 for m in list(wire.received.queue))


def test_pulls_are_answered_as_pygls_answers_them(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws")
    path = root / "kapso_evaluation" / "evaluate.py"
    wire = Wire(root, {"textDocument": {"diagnostic": {"dynamicRegistration": False}}})
    uri = path.as_uri()
    item = {"uri": uri, "languageId": "python", "version": 1, "text": TEXT}
    wire.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}})
    wire.send(did_change(uri, 2, insert(3, MARKER + "\n")))
    wire.send(pull(10, uri))
    full = wire.wait(lambda m: m.get("id") == 10)
    assert set(full) == {"jsonrpc", "id", "result"} and full["result"]["kind"] == "full"
    assert marker_lines(full["result"]["items"]) == [3]
    result_id = full["result"]["resultId"]
    wire.send(pull("eleven", uri, previousResultId=result_id, identifier="proctor"))
    same = wire.wait(lambda m: m.get("id") == "eleven")
    assert same == {"jsonrpc": "2.0", "id": "eleven", "result": {"kind": "unchanged", "resultId": result_id}}
    wire.send(pull(12, "file:///never/opened.py"))
    assert wire.wait(lambda m: m.get("id") == 12)["result"] == {"kind": "full", "items": []}
    wire.send(pull(13, uri, previousResultId=None))  # read by cattrs (a null): answered the same way
    assert wire.wait(lambda m: m.get("id") == 13)["result"] == full["result"]
    assert "Traceback" not in wire.finish()
