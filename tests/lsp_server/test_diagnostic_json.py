"""Diagnostics go out as the same JSON pygls would write, from each diagnostic's cached text."""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types

from core.diagnostics import Diagnostic, Position, Range, Severity
from lsp_server import convert
from lsp_server.server import ProctorServer


class Capture:
    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.frames.append(data)

    def close(self) -> None:
        pass


def body(frame: bytes) -> Any:
    header, _, payload = frame.partition(b"\r\n\r\n")
    length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    assert len(payload) == length
    return json.loads(payload)


def items() -> list[types.Diagnostic]:
    position = types.Position(3, 4)
    return [
        types.Diagnostic(
            range=types.Range(position, types.Position(3, 9)),
            message="`random.random()` uses the random global RNG — no seed set first",
            severity=types.DiagnosticSeverity.Warning,
            code="EV009",
            code_description=types.CodeDescription(href="https://example.invalid/rules/EV009"),
            source="proctor",
        ),
        types.Diagnostic(range=types.Range(position, position), message="plain", code="EV004"),
    ]


def protocol_with_capture() -> tuple[Any, Capture]:
    server = ProctorServer()
    capture = Capture()
    server.protocol.set_writer(capture)
    return server.protocol, capture


def test_push_is_the_json_pygls_writes() -> None:
    protocol, capture = protocol_with_capture()
    diagnostics = items()
    for version in (7, None):
        protocol.notify(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
            types.PublishDiagnosticsParams(uri="file:///w/é.py", diagnostics=diagnostics, version=version),
        )
        protocol.publish_diagnostics("file:///w/é.py", diagnostics, version)
        expected, fast = capture.frames[-2:]
        assert body(fast) == body(expected)
    protocol.publish_diagnostics("file:///w/a.py", [], None)
    assert body(capture.frames[-1])["params"] == {"uri": "file:///w/a.py", "diagnostics": []}


def test_pull_answer_is_the_json_pygls_writes() -> None:
    protocol, capture = protocol_with_capture()
    for report in (
        types.RelatedFullDocumentDiagnosticReport(items=items(), result_id="abc"),
        types.RelatedFullDocumentDiagnosticReport(items=[]),
    ):
        protocol._send_response(5, report)
        fast = body(capture.frames[-1])
        pygls_text = json.dumps(
            {"id": 5, "jsonrpc": "2.0", "result": protocol._converter.unstructure(report)}
        )
        assert fast == json.loads(pygls_text)


def test_the_converter_hands_out_the_same_object_while_the_lines_are_unchanged() -> None:
    converter = convert.DiagnosticConverter("utf-16", lambda rel: f"file:///{rel}", lambda _rel: [])
    found = Diagnostic(
        "EV009", "unseeded", Severity.WARNING, "e.py", Range(Position(1, 2), Position(1, 5)), "m"
    )
    first = converter.memoized(found, ["x = 1", "y = random()"])
    assert converter.memoized(found, ["changed", "y = random()", "more"]) is first
    moved = converter.memoized(found, ["x = 1", "😀 = random()"])  # the columns move in UTF-16
    assert moved is not first
    assert (moved.range.start.character, moved.range.end.character) == (3, 6)
