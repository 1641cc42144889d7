"""How the protocol's bytes travel: stdin read by the event loop itself when it is a pipe.

pygls reads each header line and each body in a worker thread, three thread hand-offs per message; on a busy
two-core machine that alone is about half a millisecond per keystroke. A pipe can be read by the event loop;
anything else (a file, a terminal, a socket shared with stdout, which the loop would make non-blocking) keeps
pygls' reader (`startup.own_pipe` tells them apart).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

from pygls.io_ import StdoutWriter, run_async
from pygls.protocol import JsonRPCProtocol

__all__ = ["serve_stdin_pipe"]

log = logging.getLogger(__name__)


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
            await run_async(
                stop_event=stop_event, reader=reader, protocol=protocol, logger=log, error_handler=on_error
            )

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("the client closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
