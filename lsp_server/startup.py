"""Answer `initialize` before pygls and the rule engine are imported.

Importing lsprotocol's type tables, pygls and the rules takes about half a second on a busy two-core machine;
the answer to `initialize` needs none of it: Proctor's capabilities are fixed (the features are wired in
one place), and only the position encoding depends on the client, chosen as pygls chooses it. So
`python -m lsp_server` on a stdio pipe starts the import on a thread, reads the first message, answers it from
`CAPABILITIES` and hands the bytes it read to the server, which handles `initialize` as usual (workspace,
client features, settings) and drops its own, identical reply (`protocol.ProctorProtocol`; a test holds the two
equal for every client profile).

`importing` keeps the garbage collector out of the import itself.

This module imports only the standard library's `contextlib`, `gc`, `json`, `os` and `stat`.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import stat
from collections.abc import Iterator
from typing import Any

import core

HEADER_END = b"\r\n\r\n"
SUPPORTED_ENCODINGS = ("utf-8", "utf-16", "utf-32")
DEFAULT_ENCODING = "utf-16"

# What pygls' ServerCapabilitiesBuilder computes for `server.server` (the test keeps them equal).
CAPABILITIES: dict[str, Any] = {
    "textDocumentSync": {"openClose": True, "change": 2, "save": True},
    "hoverProvider": True,
    "codeActionProvider": {"codeActionKinds": ["quickfix", "source.fixAll", "source.fixAll.proctor"]},
    "executeCommandProvider": {"commands": ["proctor.verify", "proctor.fingerprint"]},
    "diagnosticProvider": {
        "interFileDependencies": True,
        "workspaceDiagnostics": False,
        "identifier": "proctor",
    },
    "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}, "fileOperations": {}},
}


@contextlib.contextmanager
def importing() -> Iterator[None]:
    """No garbage collection while the server is imported; what it imported then starts out in the oldest
    generation.

    The import makes about 100,000 objects, most of them living as long as the server (lsprotocol's types,
    the rules' tables); collecting while they are made took about 8 % of the import's CPU (some 130
    collections, one of them full). Afterwards they are moved to the oldest generation without being
    walked (`gc.freeze` then `gc.unfreeze`), which the server collects only while the editor is idle
    (`lsp_server.idle_gc`): the import's garbage (attrs' replaced classes, some 17,000 objects) is freed
    there, not on the first lint.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()


def own_pipe(stdin_fd: int = 0, stdout_fd: int = 1) -> bool:
    """stdin is a pipe or socket of its own (not the same file as stdout): it may be read directly."""
    try:
        st_in, st_out = os.fstat(stdin_fd), os.fstat(stdout_fd)
    except OSError:
        return False
    same = (st_in.st_dev, st_in.st_ino) == (st_out.st_dev, st_out.st_ino)
    return (stat.S_ISFIFO(st_in.st_mode) or stat.S_ISSOCK(st_in.st_mode)) and not same


def read_message(fd: int = 0) -> tuple[bytes, dict[str, Any] | None]:
    """Every byte read from `fd` until one whole message was buffered, and that message (None when the
    stream ended first or the message is not a JSON object: the server then reports it as usual)."""
    buffered = b""
    while HEADER_END not in buffered:
        piece = os.read(fd, 1 << 16)
        if not piece:
            return buffered, None
        buffered += piece
    head, _, body = buffered.partition(HEADER_END)
    length = _content_length(head)
    if length is None:
        return buffered, None
    while len(body) < length:
        piece = os.read(fd, 1 << 16)
        if not piece:
            return buffered, None
        buffered += piece
        body += piece
    try:
        message = json.loads(body[:length])
    except ValueError:
        return buffered, None
    return buffered, message if isinstance(message, dict) else None


def _content_length(head: bytes) -> int | None:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            return int(value)
    return None


def position_encoding(params: dict[str, Any]) -> str:
    """The client's first supported encoding, else UTF-16 (pygls' `choose_position_encoding`)."""
    general = (params.get("capabilities") or {}).get("general") or {}
    for encoding in general.get("positionEncodings") or ():
        if encoding in SUPPORTED_ENCODINGS:
            return str(encoding)
    return DEFAULT_ENCODING


def _text_document_sync(params: dict[str, Any]) -> dict[str, Any]:
    """pygls echoes `willSave`/`willSaveWaitUntil` as false (no such handler) when the client states them."""
    sync = ((params.get("capabilities") or {}).get("textDocument") or {}).get("synchronization") or {}
    stated = {key: False for key in ("willSave", "willSaveWaitUntil") if sync.get(key) is not None}
    return {**CAPABILITIES["textDocumentSync"], **stated}


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    capabilities = {
        "positionEncoding": position_encoding(params),
        **CAPABILITIES,
        "textDocumentSync": _text_document_sync(params),
    }
    return {"capabilities": capabilities, "serverInfo": {"name": "proctor", "version": core.__version__}}


def answer_initialize(message: dict[str, Any] | None, fd: int = 1) -> tuple[int | str, dict[str, Any]] | None:
    """Write the reply to an `initialize` request: (its id, the result sent), or None when `message` is
    anything else (the server answers it then)."""
    if message is None or message.get("method") != "initialize":
        return None
    msg_id, params = message.get("id"), message.get("params")
    if not isinstance(msg_id, int | str) or isinstance(msg_id, bool) or not isinstance(params, dict):
        return None
    if not isinstance(params.get("capabilities"), dict):
        return None
    result = initialize_result(params)
    reply = {"jsonrpc": "2.0", "id": msg_id, "result": result}
    body = json.dumps(reply).encode()
    data = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    while data:
        data = data[os.write(fd, data) :]
    return msg_id, result
