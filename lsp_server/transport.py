"""How the protocol's bytes travel: stdin read by the event loop itself when it is a pipe.

pygls reads each header line and each body in a worker thread, three thread hand-offs per message; on a busy
two-core machine that alone is about half a millisecond per keystroke. A pipe can be read by the event loop;
anything else (a file, a terminal, a socket shared with stdout, which the loop would make non-blocking) keeps
pygls' reader (`startup.own_pipe` tells them apart). The loop is pygls' `run_async`, line for line, except
that each body is read by `messages.read_body` (a didChange without cattrs).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import sys
import threading
from collections.abc import Callable
from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.protocol import JsonRPCProtocol

from lsp_server.messages import read_body

__all__ = ["read_messages", "serve_stdin_pipe"]

log = logging.getLogger(__name__)

_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")


def serve_stdin_pipe(
    protocol: JsonRPCProtocol,
    stop_event: threading.Event,
    on_error: Callable[[Exception, Any], None],
    *,
    buffered: bytes = b"",
) -> None:
    """Serve `protocol` over stdin/stdout until the client goes away; `buffered` holds bytes already read
    from stdin (the early `initialize`, `startup`)."""
    protocol.set_writer(StdoutWriter(sys.stdout.buffer))

    async def serve() -> None:
        reader = asyncio.StreamReader(limit=1 << 24)
        reader.feed_data(buffered)
        loop = asyncio.get_running_loop()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
        with contextlib.suppress(asyncio.IncompleteReadError):
            await read_messages(reader, protocol, stop_event, on_error)

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("the client closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass


async def read_messages(
    reader: asyncio.StreamReader,
    protocol: JsonRPCProtocol,
    stop_event: threading.Event,
    on_error: Callable[[Exception, Any], None],
) -> None:
    """Hand each message `reader` delivers to `protocol` until the stream ends or `stop_event` is set:
    pygls' `run_async` (the same header rules, and a message that fails is logged and reported to
    `on_error`), with each body read by `messages.read_body`."""
    content_length = 0
    while not stop_event.is_set():
        header = await reader.readline()
        if not header:
            break
        if not content_length and (match := _CONTENT_LENGTH.fullmatch(header)):
            content_length = int(match.group(1))
        if content_length and not header.strip():
            body = await reader.readexactly(content_length)
            if not body:
                break
            try:
                protocol.handle_message(read_body(body, protocol.structure_message))
            except Exception as exc:
                log.exception("Unable to handle message")
                on_error(exc, JsonRpcException)
            finally:
                content_length = 0
