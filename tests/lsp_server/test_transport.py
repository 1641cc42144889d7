"""`python -m lsp_server`: stdio with `--stdio` accepted, `--tcp HOST:PORT`, and one clear line for bad use."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from typing import IO, Any

import pytest

SERVER = [sys.executable, "-m", "lsp_server"]
PROFILES = ["visual_studio_code", "neovim", "emacs"]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"capabilities": {}, "rootUri": None},
}


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def read_message(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        assert line, "the server closed the stream"
        if line == b"\r\n":
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return dict(json.loads(stream.read(length)))


def handshake(write: Any, stream: IO[bytes]) -> dict[str, Any]:
    write(frame(INITIALIZE))
    reply = read_message(stream)
    write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    assert read_message(stream)["id"] == 2
    write(frame({"jsonrpc": "2.0", "method": "exit"}))
    return reply


def test_stdio_accepts_the_stdio_flag() -> None:
    proc = subprocess.Popen([*SERVER, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None

    def write(data: bytes) -> None:
        proc.stdin.write(data)  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    reply = handshake(write, proc.stdout)
    caps = reply["result"]["capabilities"]
    assert reply["result"]["serverInfo"]["name"] == "proctor"
    assert caps["textDocumentSync"]["change"] == 2  # incremental
    assert caps["diagnosticProvider"]["interFileDependencies"] is True
    assert set(caps["executeCommandProvider"]["commands"]) == {"proctor.verify", "proctor.fingerprint"}
    assert "source.fixAll.proctor" in caps["codeActionProvider"]["codeActionKinds"]
    assert proc.wait(timeout=30) == 0


def test_tcp() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([*SERVER, "--tcp", f"127.0.0.1:{port}"], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never listened"
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.1)
        with conn, conn.makefile("rb") as stream:
            reply = handshake(conn.sendall, stream)
        assert reply["result"]["serverInfo"]["name"] == "proctor"
    finally:
        proc.kill()
        proc.wait()


def test_bad_tcp_address_is_one_line_and_exit_2() -> None:
    done = subprocess.run([*SERVER, "--tcp", "nowhere"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "proctor-lsp: error: --tcp: expected HOST:PORT (e.g. 127.0.0.1:2087), got 'nowhere'"
    ]


def _pygls_initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """What pygls itself answers to `initialize` for Proctor's registered features."""
    from lsprotocol import types
    from pygls.capabilities import ServerCapabilitiesBuilder

    from lsp_server.server import server

    protocol = server.protocol
    client = protocol._converter.structure(params["capabilities"], types.ClientCapabilities)
    encoding = ServerCapabilitiesBuilder.choose_position_encoding(client)
    features = protocol.fm
    capabilities = ServerCapabilitiesBuilder(
        client,
        set({**features.features, **features.builtin_features}),
        features.feature_options,
        list(features.commands),
        server._text_document_sync_kind,
        server._notebook_document_sync,
        encoding,
    ).build()
    result = types.InitializeResult(capabilities=capabilities, server_info=protocol.server_info)
    return dict(json.loads(json.dumps(protocol._converter.unstructure(result))))


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("encodings", [None, ["utf-8"], ["utf-32", "utf-16"], ["latin-1"]])
def test_the_early_initialize_answer_is_what_pygls_computes(
    profile: str, encodings: list[str] | None
) -> None:
    """stdio answers `initialize` before pygls is imported (`lsp_server.startup`): the same capabilities."""
    from lsp_server import startup

    capabilities = _capabilities_json(profile)
    if encodings is not None:
        capabilities["general"] = {**capabilities.get("general", {}), "positionEncodings": encodings}
    params = {"capabilities": capabilities}
    assert startup.initialize_result(params) == _pygls_initialize_result(params)


def _capabilities_json(profile: str) -> dict[str, Any]:
    from pytest_lsp import client_capabilities

    from lsp_server.server import server

    return dict(server.protocol._converter.unstructure(client_capabilities(profile)))


def test_stdio_answers_initialize_once_with_the_tcp_capabilities() -> None:
    """The early stdio answer and pygls' own (over TCP, where nothing is answered early) are the same."""
    proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None

    def write(data: bytes) -> None:
        proc.stdin.write(data)  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    early = handshake(write, proc.stdout)  # reads the shutdown reply next: a second initialize reply fails
    assert proc.wait(timeout=30) == 0
    assert b"answered early" not in proc.stderr.read()  # the server's own check of the two answers
    params = INITIALIZE["params"]
    assert isinstance(params, dict)
    assert early["result"] == _pygls_initialize_result(params)
