"""Reading a client message: `textDocument/didChange`, sent on every keystroke, and the pull that follows it
(`textDocument/diagnostic`), without cattrs.

pygls decodes each body with `json.loads(body, object_hook=protocol.structure_message)`: a Python call per
JSON object and cattrs' generated structuring, about a fifth of a millisecond per keystroke on these machines.
Both messages have one fixed shape, so `read_body` decodes the body plainly and builds the lsprotocol objects
itself when the message has exactly that shape: the expected keys, each value of exactly the JSON type cattrs
expects (an int, not a bool or a float or a numeric string it would coerce), and the same validators run
(they are the classes' own constructors). Anything else (another method, an extra or missing key, a value
cattrs would coerce or reject, invalid JSON) is read again pygls' way, so its result or its error is pygls'
own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from lsprotocol import types

__all__ = ["read_body", "structure_diagnostic_request", "structure_did_change"]

# A body that can hold one of the two messages read here names its method (JSON escapes aside: `\/` is read
# pygls' way, which gives the same message).
_DIRECT_METHODS = re.compile(rb'"textDocument/(?:didChange|diagnostic)"')
_MESSAGE_KEYS = frozenset(("jsonrpc", "method", "params"))
_REQUEST_KEYS = frozenset(("jsonrpc", "id", "method", "params"))
_PULL_OPTIONAL_KEYS = frozenset(("identifier", "previousResultId"))
_URI_KEYS = frozenset(("uri",))
_PARAMS_KEYS = frozenset(("textDocument", "contentChanges"))
_IDENTIFIER_KEYS = frozenset(("uri", "version"))
_RANGE_KEYS = frozenset(("start", "end"))
_POSITION_KEYS = frozenset(("line", "character"))
_PARTIAL_KEYS = frozenset(("range", "text"))
_PARTIAL_WITH_LENGTH_KEYS = frozenset(("range", "rangeLength", "text"))
_WHOLE_KEYS = frozenset(("text",))


class _NotThatShape(Exception):
    """The message is not a didChange of the plain shape: pygls reads it."""


def read_body(body: bytes, structure_message: Callable[[dict[str, Any]], Any]) -> Any:
    """The message in `body`, equal to pygls' `json.loads(body, object_hook=structure_message)` (which
    reads it whenever it is not a plain didChange, so its errors are pygls' too)."""
    message: Any = None
    data: Any = None
    if _DIRECT_METHODS.search(body) is not None:  # other messages (a didOpen's whole text) are decoded once
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):  # not JSON (or too deep): pygls raises the same error
            data = None
    if type(data) is dict:
        method = data.get("method")
        if method == types.TEXT_DOCUMENT_DID_CHANGE:
            message = structure_did_change(data)
        elif method == types.TEXT_DOCUMENT_DIAGNOSTIC:
            message = structure_diagnostic_request(data)
    if message is None:
        return json.loads(body, object_hook=structure_message)
    return message


def structure_did_change(data: Any) -> types.DidChangeTextDocumentNotification | None:
    """`data` (decoded JSON) as cattrs structures a didChange notification, or None when it is anything
    else or anything cattrs would coerce or reject (see module docstring)."""
    if type(data) is not dict or data.keys() != _MESSAGE_KEYS:
        return None
    jsonrpc, params = data["jsonrpc"], data["params"]
    if data["method"] != types.TEXT_DOCUMENT_DID_CHANGE or type(jsonrpc) is not str:
        return None
    try:
        identifier = _dict(params, _PARAMS_KEYS)["textDocument"]
        _dict(identifier, _IDENTIFIER_KEYS)
        uri, version, changes = identifier["uri"], identifier["version"], params["contentChanges"]
        if type(uri) is not str or type(version) is not int or type(changes) is not list:
            return None
        structured = tuple(map(_change, changes))
        text_document = types.VersionedTextDocumentIdentifier(version=version, uri=uri)
    except (_NotThatShape, ValueError, TypeError):  # the validators raise ValueError / TypeError
        return None
    return types.DidChangeTextDocumentNotification(
        params=types.DidChangeTextDocumentParams(text_document=text_document, content_changes=structured),
        jsonrpc=jsonrpc,
    )


def structure_diagnostic_request(data: Any) -> types.DocumentDiagnosticRequest | None:
    """`data` (decoded JSON) as cattrs structures a pull request, or None when it is anything else or
    anything cattrs would coerce or reject (see module docstring)."""
    if type(data) is not dict or data.keys() != _REQUEST_KEYS:
        return None
    msg_id, jsonrpc, params = data["id"], data["jsonrpc"], data["params"]
    if data["method"] != types.TEXT_DOCUMENT_DIAGNOSTIC or type(jsonrpc) is not str:
        return None
    if type(msg_id) not in (int, str) or type(params) is not dict:
        return None
    keys = params.keys()
    identifier, previous = params.get("identifier"), params.get("previousResultId")
    if "textDocument" not in keys or not keys - {"textDocument"} <= _PULL_OPTIONAL_KEYS:
        return None
    if ("identifier" in keys and type(identifier) is not str) or (
        "previousResultId" in keys and type(previous) is not str
    ):
        return None
    document = params["textDocument"]
    if type(document) is not dict or document.keys() != _URI_KEYS or type(document["uri"]) is not str:
        return None
    return types.DocumentDiagnosticRequest(
        id=msg_id,
        params=types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=document["uri"]),
            identifier=identifier,
            previous_result_id=previous,
        ),
        jsonrpc=jsonrpc,
    )


def _dict(value: Any, keys: frozenset[str]) -> dict[str, Any]:
    if type(value) is not dict or value.keys() != keys:
        raise _NotThatShape
    return value


def _change(value: Any) -> types.TextDocumentContentChangeEvent:
    if type(value) is not dict:
        raise _NotThatShape
    keys = value.keys()
    text = value["text"] if "text" in keys else None
    if type(text) is not str:
        raise _NotThatShape
    if keys == _WHOLE_KEYS:
        return types.TextDocumentContentChangeWholeDocument(text=text)
    length = value.get("rangeLength")
    if not (keys == _PARTIAL_KEYS or (keys == _PARTIAL_WITH_LENGTH_KEYS and type(length) is int)):
        raise _NotThatShape
    range_ = _dict(value["range"], _RANGE_KEYS)
    return types.TextDocumentContentChangePartial(
        range=types.Range(start=_position(range_["start"]), end=_position(range_["end"])),
        text=text,
        range_length=length,
    )


def _position(value: Any) -> types.Position:
    _dict(value, _POSITION_KEYS)
    line, character = value["line"], value["character"]
    if type(line) is not int or type(character) is not int:
        raise _NotThatShape
    return types.Position(line=line, character=character)
