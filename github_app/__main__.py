"""`proctor-app [web|worker]` / `python -m github_app`: the webhook receiver and the job worker.

With no mode both run in one process (the embedded default: nothing else to start). A missing or invalid
setting is one line on stderr and exit 2 before anything listens.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from core.errors import ProctorError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="proctor-app",
        description="Proctor's GitHub App (see README).",
        epilog="proctor-app keys create OWNER/REPO --installation N: a key for the feedback API.",
    )
    parser.add_argument(
        "mode", nargs="?", choices=("web", "worker"), help="run only one half (default: both)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--debug", action="store_true", help="log everything, with tracebacks")
    return parser


_PR_SET_DUMPABLE = 4


def protect_process() -> None:
    """Make this process non-dumpable: processes of the same user (a candidate run under the `process`
    sandbox) can then neither read its memory (the installation token) nor /proc/PID/environ, which keeps
    the initial environment — the private key — even after `load_settings` removed it from os.environ."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def build_keys_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="proctor-app keys", description="Issue API keys for the feedback API (see README)."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create", help="a new key for one repository; printed once, stored hashed")
    create.add_argument("repo", help="OWNER/REPO")
    create.add_argument("--installation", type=int, required=True, help="the App's installation id there")
    create.add_argument(
        "--clone-url", default="", help="default: the repository on the GitHub PROCTOR_GITHUB_API serves"
    )
    create.add_argument("--branch", default="main", help="the default branch (its config declares the tasks)")
    return parser


def keys_main(argv: Sequence[str]) -> int:
    """`proctor-app keys create OWNER/REPO --installation N`: print a new key for the feedback API."""
    import re

    from github_app.feedback_store import FeedbackStore
    from github_app.settings import load_settings
    from github_app.store import Store

    args = build_keys_parser().parse_args(argv)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", args.repo):
        print(f"proctor-app keys: expected OWNER/REPO, found {args.repo!r}", file=sys.stderr)
        return 2
    try:
        settings = load_settings()
    except ProctorError as exc:
        print(f"proctor-app: {exc}", file=sys.stderr)
        return 2
    clone_url = args.clone_url or default_clone_url(settings.github_api, args.repo)
    store = FeedbackStore(Store(settings.db_url).engine)
    print(store.create_key(args.repo, args.installation, clone_url, args.branch))
    return 0


def default_clone_url(api: str, repo: str) -> str:
    """github.com's clone URL for api.github.com; `https://HOST/OWNER/REPO.git` for GHES's `https://HOST/api/v3`."""
    host = (
        "https://github.com" if api.rstrip("/") == "https://api.github.com" else api.removesuffix("/api/v3")
    )
    return f"{host}/{repo}.git"


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["keys"]:
        return keys_main(argv[1:])
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    from github_app.app import App
    from github_app.settings import load_settings

    protect_process()
    try:
        app = App(load_settings())
    except ProctorError as exc:
        print(f"proctor-app: {exc}", file=sys.stderr)
        return 2
    if args.mode == "worker":
        return _run_worker(app)
    return _run_web(app, args.host, args.port, with_worker=args.mode is None)


def _run_worker(app: object) -> int:
    from github_app.app import App

    assert isinstance(app, App)
    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    app.work(stop)
    return 0


def _run_web(app: object, host: str, port: int, *, with_worker: bool) -> int:
    import uvicorn

    from github_app.app import App

    assert isinstance(app, App)
    stop = threading.Event()
    worker = threading.Thread(target=app.work, args=(stop,), name="proctor-worker", daemon=True)
    if with_worker:
        worker.start()
    try:
        uvicorn.run(app.web(), host=host, port=port, log_level="warning", access_log=False)
    finally:
        stop.set()
        if with_worker:
            worker.join(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
