"""pygls' protocol with Proctor's document store, the early `initialize` answer and a guard for late replies."""

from __future__ import annotations

import json
import logging
from typing import Any, Protocol, cast

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from lsp_server.documents import DocumentStore
from lsp_server.engine import Engine
from lsp_server.idle_gc import IdleCollector

__all__ = ["Host", "ProctorProtocol"]

log = logging.getLogger(__name__)


class Host(Protocol):
    """What the protocol needs of its server (the server satisfies it; this module never imports it)."""

    docs: DocumentStore
    engine: Engine
    idle_gc: IdleCollector


class ProctorProtocol(LanguageServerProtocol):
    """pygls' protocol with Proctor's document store and a guard for late replies (pygls #621)."""

    @property
    def host(self) -> Host:
        """The Proctor server this protocol serves (pygls types it as any language server)."""
        return cast(Host, self._server)

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        self.host.docs.open(params.text_document)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        self.host.docs.change(params, self.host.engine.client.encoding)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None

    answered_early: tuple[int | str, dict[str, Any]] | None = None  # (id, result) sent by `startup`

    def unstructure(self, value: Any) -> object:
        """`value` as pygls serializes it for the client (the first call per type builds the converter)."""
        return self._converter.unstructure(value)

    def handle_message(self, msg: Any) -> None:
        self.host.idle_gc.poke()
        super().handle_message(msg)

    def _send_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        """Drop the reply to an `initialize` that `startup` answered already (from the same capabilities)."""
        early = self.answered_early
        if early is not None and msg_id == early[0]:
            self.answered_early = None
            computed = json.loads(json.dumps(self._converter.unstructure(result))) if error is None else None
            if computed != early[1]:
                log.error("initialize was answered early with %s, pygls computed %s", early[1], computed)
            return
        super()._send_response(msg_id, result, error)

    def _handle_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.cancelled():
            self._request_futures.pop(msg_id, None)
            log.debug("dropping the reply to cancelled request %s", msg_id)
            return
        super()._handle_response(msg_id, result, error)
