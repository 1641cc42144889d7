"""pygls' protocol with Proctor's document store, the early `initialize` answer and a guard for late replies."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
import logging
import sys
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, Protocol, cast

import attrs
from lsprotocol import types
from pygls.constants import ATTR_EXECUTE_IN_THREAD
from pygls.exceptions import (
    FeatureNotificationError,
    FeatureRequestError,
    JsonRpcException,
    JsonRpcInternalError,
)
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from lsp_server.documents import DocumentStore
from lsp_server.engine import Engine
from lsp_server.idle_gc import IdleCollector

__all__ = ["DiagnosticJson", "Host", "ProctorProtocol"]

log = logging.getLogger(__name__)

_WRITES: set[asyncio.Future[Any]] = set()


class Host(Protocol):
    """What the protocol needs of its server (the server satisfies it; this module never imports it)."""

    docs: DocumentStore
    engine: Engine
    idle_gc: IdleCollector


class DiagnosticJson:
    """The JSON text of each LSP diagnostic object, made once. The engine hands out the same objects while a
    diagnostic and its lines are unchanged (`DiagnosticConverter.memoized`), so a push or a pull answer costs
    a join instead of converting and dumping every diagnostic again on every keystroke."""

    def __init__(self, unstructure: Callable[[Any], object], limit: int = 8192) -> None:
        self._unstructure = unstructure
        self._limit = limit
        self._texts: dict[int, tuple[types.Diagnostic, str]] = {}  # id -> (the object, kept alive; its text)

    def array(self, items: Sequence[types.Diagnostic]) -> str:
        return "[" + ",".join(map(self._text, items)) + "]"

    def _text(self, item: types.Diagnostic) -> str:
        found = self._texts.get(id(item))
        if found is not None and found[0] is item:
            return found[1]
        text = json.dumps(self._unstructure(item))
        if len(self._texts) >= self._limit:
            self._texts.clear()
        self._texts[id(item)] = (item, text)
        return text


# Messages `ProctorProtocol.handle_message` dispatches itself (the ones sent while a person types).
_DIRECT = frozenset((types.DidChangeTextDocumentNotification, types.DocumentDiagnosticRequest))


@functools.lru_cache(maxsize=16)
def _plain(handler: Callable[..., Any] | None) -> bool:
    """No handler, or one pygls would call synchronously (`JsonRPCProtocol._execute_handler`'s last branch)."""
    return not (
        asyncio.iscoroutinefunction(handler)
        or getattr(handler, ATTR_EXECUTE_IN_THREAD, False)
        or inspect.isgeneratorfunction(handler)
    )


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

    def _did_change_now(self, params: types.DidChangeTextDocumentParams) -> None:
        """What pygls does with `lsp_text_document__did_change` for a notification whose registered handler
        is plain (`_plain`), without its futures, message ids and generator protocol: the change applied,
        then the handler called, and an exception from either reported as pygls reports it (the handler is
        not called after a failed change)."""
        try:
            self.host.docs.change(params, self.host.engine.client.encoding)
            if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
                handler(params)
        except Exception:
            error = JsonRpcInternalError.of(sys.exc_info())  # type: ignore[no-untyped-call]
            self._server._report_server_error(error, FeatureNotificationError)

    answered_early: tuple[int | str, dict[str, Any]] | None = None  # (id, result) sent by `startup`

    def unstructure(self, value: Any) -> object:
        """`value` as pygls serializes it for the client (the first call per type builds the converter)."""
        return self._converter.unstructure(value)

    @cached_property
    def diagnostic_json(self) -> DiagnosticJson:
        return DiagnosticJson(self._converter.unstructure)

    def publish_diagnostics(self, uri: str, items: Sequence[types.Diagnostic], version: int | None) -> None:
        """`textDocument/publishDiagnostics`, the same JSON pygls would send, from each diagnostic's cached text."""
        version_field = "" if version is None else f',"version":{int(version)}'
        params = (
            f'{{"uri":{json.dumps(uri)},"diagnostics":{self.diagnostic_json.array(items)}{version_field}}}'
        )
        method = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        self._write_body(f'{{"method":"{method}","params":{params},"jsonrpc":"{self.VERSION}"}}')

    def _diagnostic_report(self, msg_id: Any, report: types.RelatedFullDocumentDiagnosticReport) -> None:
        """The answer to a pull, as pygls would write it, with the items from their cached text."""
        self._result_types.pop(msg_id, None)
        rest = cast(dict[str, Any], self._converter.unstructure(attrs.evolve(report, items=[])))
        rest.pop("items", None)
        fields = json.dumps(rest)[1:]  # '"kind": "full", ...}' or '}'
        result = '{"items":' + self.diagnostic_json.array(report.items) + ("," if rest else "") + fields
        self._write_body(f'{{"id":{json.dumps(msg_id)},"jsonrpc":"{self.VERSION}","result":{result}}}')

    def _write_body(self, body: str) -> None:
        """What pygls' `_send_data` does once it has the JSON text: the headers, the write, its errors."""
        if self.writer is None:
            log.error("Unable to send data, no available transport!")
            return
        data = body.encode(self.CHARSET)
        if self._include_headers:
            header = f"Content-Length: {len(data)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            data = header.encode(self.CHARSET) + data
        try:
            written = self.writer.write(data)
            if inspect.isawaitable(written):  # an async transport: keep the write alive until it is done
                task = asyncio.ensure_future(written)
                _WRITES.add(task)
                task.add_done_callback(_WRITES.discard)
        except BrokenPipeError:
            log.exception("Error sending data. BrokenPipeError")
            raise
        except Exception as error:
            log.exception("Error sending data")
            self._server._report_server_error(error, JsonRpcInternalError)

    def handle_message(self, msg: Any) -> None:
        """pygls' dispatch; a didChange notification (every keystroke) and a pull request are handled as
        pygls would, directly (`_did_change_now`, `_request_now`), in their own context, unless the version is
        wrong or the server shut down (pygls then logs and drops them) or the handler is not plain."""
        self.host.idle_gc.poke()
        kind = type(msg)
        if kind in _DIRECT and msg.jsonrpc == self.VERSION and not self._shutdown:
            handler = self.fm.features.get(msg.method)
            if _plain(handler):
                if kind is types.DidChangeTextDocumentNotification:
                    log.debug("Notification %r received", msg.method)
                    contextvars.copy_context().run(self._did_change_now, msg.params)
                    return
                if handler is not None and msg.method not in self.fm.builtin_features:  # else pygls' way
                    log.debug("Request %r received", msg.method)
                    contextvars.copy_context().run(self._request_now, msg.id, handler, msg.params)
                    return
        super().handle_message(msg)

    def _request_now(self, msg_id: Any, handler: Callable[[Any], Any], params: Any) -> None:
        """pygls' `_handle_request`, `_execute_handler` and `_send_handler_result` for a plain handler,
        without the Future between them: the answer sent, or the handler's exception as an error answer
        (and reported) the way pygls sends it."""
        self._ctx_msg_id.set(msg_id)
        try:
            try:
                result = handler(params)
            finally:
                self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, result=result)
        except JsonRpcException as exc:
            log.exception('Exception occurred for message "%s"', msg_id)
            self._send_response(msg_id, error=exc.to_response_error())
            self._server._report_server_error(exc, FeatureRequestError)
        except Exception:
            error = JsonRpcInternalError.of(sys.exc_info())  # type: ignore[no-untyped-call]
            log.exception('Exception occurred for message "%s"', msg_id)
            self._send_response(msg_id, error=error.to_response_error())
            self._server._report_server_error(error, FeatureRequestError)

    def _send_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        """Drop the reply to an `initialize` that `startup` answered already (from the same capabilities)."""
        early = self.answered_early
        if early is not None and msg_id == early[0]:
            self.answered_early = None
            computed = json.loads(json.dumps(self._converter.unstructure(result))) if error is None else None
            if computed != early[1]:
                log.error("initialize was answered early with %s, pygls computed %s", early[1], computed)
            return
        if error is None and isinstance(result, types.RelatedFullDocumentDiagnosticReport):
            self._diagnostic_report(msg_id, result)
            return
        super()._send_response(msg_id, result, error)

    def _handle_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.cancelled():
            self._request_futures.pop(msg_id, None)
            log.debug("dropping the reply to cancelled request %s", msg_id)
            return
        super()._handle_response(msg_id, result, error)
