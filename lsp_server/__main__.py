"""`python -m lsp_server` / `proctor-lsp`: stdio by default (`--stdio` is accepted and ignored), or
`--tcp HOST:PORT`. Logs go to stderr (stdout is the protocol) or to `--log-file`."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import threading
from collections.abc import Sequence

from lsp_server import startup


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="proctor-lsp", description="Proctor language server")
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead of stdio")
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="default: WARNING",
    )
    parser.add_argument("--log-file", help="write logs here instead of stderr")
    return parser


def parse_tcp(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--tcp: expected HOST:PORT (e.g. 127.0.0.1:2087), got {value!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    address = None
    if args.tcp:
        try:
            address = parse_tcp(args.tcp)
        except ValueError as exc:
            print(f"proctor-lsp: error: {exc}", file=sys.stderr)
            return 2
    handler: logging.Handler = (
        logging.FileHandler(args.log_file, encoding="utf-8")
        if args.log_file
        else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=args.log_level, handlers=[handler], force=True)

    if address is not None:
        with startup.importing():
            from lsp_server.server import server

        server.start_tcp(*address)
    elif startup.own_pipe():
        _serve_pipe()
    else:
        with startup.importing():
            from lsp_server.server import server

        server.start_io()
    return 0


def _serve_pipe() -> None:
    """Answer `initialize` while the server is still being imported (see `lsp_server.startup`)."""
    importer = threading.Thread(target=importlib.import_module, args=("lsp_server.server",), daemon=True)
    with startup.importing():
        importer.start()
        buffered, first = startup.read_message()
        answered = startup.answer_initialize(first)
        importer.join()
    from lsp_server.server import server  # raises here what the thread's import raised

    server.start_io(buffered=buffered, answered=answered)


if __name__ == "__main__":
    sys.exit(main())
