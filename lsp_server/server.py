"""The Proctor language server (SPEC §8): thin pygls handlers over `core`, wired in one place.

Each handler gets the document, asks `engine`/`actions`/`commands` for core values and converts them with
`convert`. Diagnostics are pulled (`textDocument/diagnostic`) when the client supports it and pushed
otherwise, never both for one document. Push timing and bookkeeping live in `publisher.Publisher` (a
debounce that adapts to what a lint costs).

No handler raises to the client (`never_raises`), and no client request is ever awaited inside a debounced
or cancellable task (pygls #621): timers call plain functions, client requests are sent with callbacks.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

import core
from core.config_view import CONFIG_FILE, PYPROJECT_FILE
from core.lint import classify
from core.rules.base import DocumentKind
from lsp_server import convert, integrity, startup, transport, warmup
from lsp_server.client_features import ClientFeatures
from lsp_server.documents import Document, DocumentStore, uri_to_path
from lsp_server.engine import Engine, LintResult, Root
from lsp_server.guarded import never_raises
from lsp_server.idle_gc import IdleCollector
from lsp_server.protocol import ProctorProtocol
from lsp_server.publisher import Publisher
from lsp_server.settings import SECTION, parse_settings

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

FIX_ALL_KIND = "source.fixAll.proctor"
CMD_VERIFY = "proctor.verify"
CMD_FINGERPRINT = "proctor.fingerprint"
_WATCH_GLOBS = ("**/proctor.toml", "**/pyproject.toml", "**/*.md", "**/.kapso/evaluation_registry.json")


class ProctorServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "proctor",
            core.__version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=ProctorProtocol,
        )
        self.docs = DocumentStore()
        self.engine = Engine(self.docs)
        self.publisher = Publisher(self.engine, self._push)
        self.publisher.after_publish = self._after_publish
        self.idle_gc = IdleCollector()
        self._extra_pushed: dict[str, str] = {}
        self._registry_uris: dict[Path, str] = {}
        self._refresh_pending = False
        self._said: set[str] = set()
        self.shutting_down = False

    def start_io(
        self,
        stdin: BinaryIO | None = None,
        stdout: BinaryIO | None = None,
        *,
        buffered: bytes = b"",
        answered: tuple[int | str, dict[str, Any]] | None = None,
    ) -> None:
        """Serve over stdin/stdout, reading stdin on the event loop when it is a pipe (`transport`).
        `buffered` holds bytes already read from that pipe, `answered` the `initialize` already answered
        (`startup`)."""
        if stdin is not None or stdout is not None or not startup.own_pipe():
            super().start_io(stdin, stdout)
            return
        if isinstance(self.protocol, ProctorProtocol):
            self.protocol.answered_early = answered
        self.idle_gc.install()
        log.info("reading stdin on the event loop")
        self._stop_event = stop_event = threading.Event()
        try:
            transport.serve_stdin_pipe(self.protocol, stop_event, self.report_server_error, buffered=buffered)
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    def warm_up(self) -> None:
        """Pay the first lint's one-time costs now, at `initialized` (`warmup`). Not on a later loop turn: a
        didOpen read meanwhile would wait for the whole warm-up and then pay for itself what it had not
        warmed yet, and an answer to a request sent after `initialized` would mean "loaded" without it."""
        protocol = self.protocol
        if isinstance(protocol, ProctorProtocol):
            warmup.warm_up(protocol.unstructure, self.engine.client.encoding, protocol.structure_message)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log only: pygls would pop up every out-of-band error in the client."""
        log.error("server error (%s): %s", getattr(source, "__name__", source), error)

    # -- settings ---------------------------------------------------------------------------------------

    def apply_settings(self, raw: object, origin: str) -> None:
        settings, problems = parse_settings(raw, self.engine.settings)
        for problem in problems:
            self.say_once(f"Proctor: {origin}: {problem}", types.MessageType.Warning)
        if settings != self.engine.settings:
            self.engine.set_settings(settings)
            self.relint_all()

    def say_once(self, message: str, kind: types.MessageType) -> None:
        if message not in self._said:
            self._said.add(message)
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def request_configuration(self) -> None:
        """Ask for section `proctor` (only when the client supports it); the reply arrives as a callback."""
        if not self.engine.client.configuration or self.shutting_down:
            return
        params = types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])

        def on_reply(result: Any) -> None:
            value = result[0] if isinstance(result, list | tuple) and result else None
            self.apply_settings(value, "workspace/configuration")

        future = self.protocol.send_request(types.WORKSPACE_CONFIGURATION, params)
        future.add_done_callback(_on_done(on_reply))

    # -- diagnostics delivery ---------------------------------------------------------------------------

    @property
    def pull(self) -> bool:
        return self.engine.client.pull

    def schedule(self, uri: str, *, immediate: bool = False) -> None:
        """Push clients: lint `uri` soon (see `Publisher`)."""
        if not self.shutting_down:
            self.publisher.schedule(uri, immediate=immediate)

    def publish(self, uri: str) -> None:
        self.publisher.publish(uri)

    def _push(self, uri: str, items: list[types.Diagnostic], version: int | None) -> None:
        protocol = self.protocol
        if isinstance(protocol, ProctorProtocol):
            protocol.publish_diagnostics(uri, items, version)
        else:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=version)
            )

    def _after_publish(self, uri: str) -> None:
        result = self.engine.cached(uri)
        if result is not None and result.root is not None:
            self.sync_registry_push(self.engine.roots[result.root])

    def refresh(self) -> None:
        """Pull clients: ask for a re-pull (once per loop turn), when the client supports the request."""
        if not self.pull or not self.engine.client.refresh or self._refresh_pending or self.shutting_down:
            return
        self._refresh_pending = True

        def send() -> None:
            self._refresh_pending = False
            future = self.protocol.send_request(types.WORKSPACE_DIAGNOSTIC_REFRESH, None)
            future.add_done_callback(_on_done(lambda _r: None))

        try:
            asyncio.get_running_loop().call_soon(send)
        except RuntimeError:
            send()

    def relint(self, uris: list[str]) -> None:
        if self.pull:
            if uris:
                self.refresh()
            return
        for uri in uris:
            self.schedule(uri)

    def relint_all(self, root: Root | None = None) -> None:
        uris = [
            d.uri
            for d in self.docs.all()
            if root is None or (d.path is not None and self.engine.root_for(d.path) is root)
        ]
        self.relint(uris)
        for each in [root] if root is not None else list(self.engine.roots.values()):
            self.sync_registry_push(each)

    def sync_registry_push(self, root: Root) -> None:
        """IN002/IN005 with no open suite document go to the registry file; it is pushed only while it is
        not open (an open document gets them from its own lint, pulled or pushed)."""
        relpath = integrity.REGISTRY_FILE
        uri = self._registry_uris.get(root.path)
        if uri is None:
            uri = self._registry_uris[root.path] = self.engine.uri_of(root)(relpath)
        if not root.tree_findings and uri not in self._extra_pushed:
            return  # nothing to show and nothing shown: the common case, on every push
        if self.docs.get(uri) is not None:
            if self._extra_pushed.pop(uri, None) is not None:
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
                )
            return
        found = [
            d
            for d in root.tree_findings
            if root.baseline is not None and self.engine.tree_target(root, d.path) == relpath
        ]
        # None: nothing to show, and nothing was shown (no empty push for a file never pushed to).
        signature = repr(found) if found else None
        if self._extra_pushed.get(uri) == signature:
            return
        if signature is not None:
            self._extra_pushed[uri] = signature
        else:
            self._extra_pushed.pop(uri, None)
        lines = self.engine.lines_of(root)(relpath)
        items = self.engine.converter(root).all_to_lsp(found, lines)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=items))

    def clear(self, uri: str) -> None:
        self.publisher.clear(uri)

    def stop_timers(self) -> None:
        self.publisher.stop()
        self.idle_gc.stop()

    # -- helpers for handlers ---------------------------------------------------------------------------

    def root_of(self, doc: Document) -> Root | None:
        return self.engine.root_for(doc.path) if doc.path is not None else None

    def after_file_event(self, path: Path, *, content_changed: bool) -> None:
        """A workspace file changed (buffer, save or disk): re-lint whatever depends on it."""
        root = self.engine.root_for(path)
        relpath = self.engine.relpath(root, path)
        if relpath in (CONFIG_FILE, PYPROJECT_FILE, integrity.REGISTRY_FILE) or not content_changed:
            root.tree_stale = True
            self.engine.refresh_config(root)
            self.engine.refresh_integrity(root, force=relpath == integrity.REGISTRY_FILE)
            self.relint_all(root)
            return
        self.relint([uri for uri in self.engine.dependants(path) if self.docs.get(uri) is not None])


def _on_done(callback: Callable[[Any], None]) -> Callable[[Any], None]:
    """A future callback that never raises: a failed or cancelled client request is only logged."""

    def done(future: Any) -> None:
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            log.warning("client request failed: %s", error)
            return
        try:
            callback(future.result())
        except Exception:
            log.exception("handling a client reply failed")

    return done


server = ProctorServer()


# -- lifecycle ----------------------------------------------------------------------------------------------


@server.feature(types.INITIALIZE)
@never_raises()
def initialize(ls: ProctorServer, params: types.InitializeParams) -> None:
    encoding = str(ls.workspace.position_encoding or convert.UTF16)
    ls.engine.client = client = ClientFeatures.from_capabilities(params.capabilities, encoding)
    ls.engine.folders = [
        p for f in (params.workspace_folders or []) if (p := uri_to_path(f.uri)) is not None
    ] or ([Path(ls.workspace.root_path)] if ls.workspace.root_path else [])
    ls.apply_settings(params.initialization_options, "initializationOptions")
    log.info(
        "client %s: %s diagnostics, %s positions",
        params.client_info,
        "pull" if client.pull else "push",
        client.encoding,
    )


@server.feature(types.INITIALIZED)
@never_raises()
def initialized(ls: ProctorServer, params: types.InitializedParams) -> None:
    ls.request_configuration()
    ls.warm_up()
    if ls.engine.client.watched_files_dynamic:
        watchers = [types.FileSystemWatcher(glob_pattern=g) for g in _WATCH_GLOBS]
        watchers.append(types.FileSystemWatcher(glob_pattern="**/kapso_evaluation/**"))
        registration = types.Registration(
            id="proctor-watch",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        future = ls.protocol.send_request(
            types.CLIENT_REGISTER_CAPABILITY, types.RegistrationParams(registrations=[registration])
        )
        future.add_done_callback(_on_done(lambda _r: None))


@server.feature(types.SHUTDOWN)
@never_raises()
def shutdown(ls: ProctorServer, params: None) -> None:
    ls.shutting_down = True
    ls.stop_timers()


# -- documents ----------------------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@never_raises()
def did_open(ls: ProctorServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = ls.docs.get(params.text_document.uri)
    if doc is None or doc.path is None:
        return
    ls.engine.forget(doc.uri)
    root = ls.engine.root_for(doc.path)
    ls.schedule(doc.uri, immediate=True)
    if root.baseline is not None or (root.path / integrity.REGISTRY_FILE).exists():
        # Which open document shows IN002/IN005 may have changed.
        root.tree_stale = True
        ls.relint_all(root)
    ls.after_file_event(doc.path, content_changed=True)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@never_raises()
def did_change(ls: ProctorServer, params: types.DidChangeTextDocumentParams) -> None:
    doc = ls.docs.get(params.text_document.uri)
    if doc is None:
        return
    ls.schedule(doc.uri)
    if doc.path is not None:
        ls.after_file_event(doc.path, content_changed=True)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
@never_raises()
def did_save(ls: ProctorServer, params: types.DidSaveTextDocumentParams) -> None:
    doc = ls.docs.get(params.text_document.uri)
    if doc is not None and doc.path is not None:
        ls.after_file_event(doc.path, content_changed=False)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@never_raises()
def did_close(ls: ProctorServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.clear(uri)
    doc = ls.docs.close(uri)
    if doc is not None and doc.path is not None:
        root = ls.engine.root_for(doc.path)
        if root.baseline is not None:
            root.tree_stale = True
            ls.relint_all(root)
        ls.after_file_event(doc.path, content_changed=True)


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(identifier="proctor", inter_file_dependencies=True, workspace_diagnostics=False),
)
@never_raises(default=types.RelatedFullDocumentDiagnosticReport(items=[]))
def diagnostic(
    ls: ProctorServer, params: types.DocumentDiagnosticParams
) -> types.RelatedFullDocumentDiagnosticReport | types.RelatedUnchangedDocumentDiagnosticReport:
    doc = ls.docs.get(params.text_document.uri)
    if doc is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    result = ls.engine.result(doc)
    if params.previous_result_id == result.result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result.result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=result.items, result_id=result.result_id)


# -- settings and workspace files ----------------------------------------------------------------------------


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
@never_raises()
def did_change_configuration(ls: ProctorServer, params: types.DidChangeConfigurationParams) -> None:
    if ls.engine.client.configuration:
        ls.request_configuration()
    else:
        ls.apply_settings(params.settings, "didChangeConfiguration")


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@never_raises()
def did_change_watched_files(ls: ProctorServer, params: types.DidChangeWatchedFilesParams) -> None:
    touched: dict[Path, Root] = {}
    for change in params.changes:
        path = uri_to_path(change.uri)
        if path is not None:
            root = ls.engine.root_for(path)
            touched[root.path] = root
            if change.type is not types.FileChangeType.Changed or path.name in (CONFIG_FILE, PYPROJECT_FILE):
                root.tree_stale = True
            ls.after_file_event(path, content_changed=True)
    for root in touched.values():
        root.tree_stale = True
        ls.engine.refresh_config(root)
        ls.engine.refresh_integrity(root, force=True)
        ls.relint_all(root)


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
@never_raises()
def did_change_workspace_folders(ls: ProctorServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    ls.engine.folders = [p for f in ls.workspace.folders.values() if (p := uri_to_path(f.uri)) is not None]


# -- code actions and hover -----------------------------------------------------------------------------------


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL_KIND]
    ),
)
@never_raises(default=None)
def code_action(ls: ProctorServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    doc = ls.docs.get(params.text_document.uri)
    if doc is None or doc.path is None:
        return None
    result = ls.engine.result(doc)
    root = ls.root_of(doc)
    if root is None or result.relpath is None:
        return None
    only = params.context.only
    wanted_quickfix = not only or any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only)
    wanted_fix_all = not only or any(FIX_ALL_KIND.startswith(k) for k in only)
    # The code actions, hover and commands (with the fix engine) load on the first such request, not before
    # the first diagnostics: an editor opening a file waits for every import the server makes at start-up.
    from lsp_server import commands

    selection = convert.from_lsp_range(params.range, doc.lines, ls.engine.client.encoding)
    found: list[types.CodeAction] = []
    if wanted_quickfix:
        found.extend(commands.quick_fixes(ls.engine, root, doc, result, selection))
    if wanted_fix_all:
        fix_all = commands.fix_all_action(ls.engine, root, doc, result, FIX_ALL_KIND)
        if fix_all is not None:
            found.append(fix_all)
    return found


@server.feature(types.TEXT_DOCUMENT_HOVER)
@never_raises(default=None)
def hover(ls: ProctorServer, params: types.HoverParams) -> types.Hover | None:
    doc = ls.docs.get(params.text_document.uri)
    if doc is None or doc.path is None:
        return None
    root = ls.engine.root_for(doc.path)
    relpath = ls.engine.relpath(root, doc.path)
    kind = classify(relpath, root.config) if relpath else None
    from lsp_server import commands  # at the first request (see `code_action`)

    found = commands.hover_markdown(
        doc, params.position, ls.engine.client.encoding, kind is DocumentKind.BRIEF
    )
    if found is None:
        return None
    markdown, range_ = found
    return convert.to_lsp_hover(markdown, range_, doc.lines, ls.engine.client.encoding)


# -- commands -------------------------------------------------------------------------------------------------


@server.command(CMD_VERIFY)
@never_raises(default=None)
async def verify(ls: ProctorServer, *args: Any) -> dict[str, Any] | None:
    from lsp_server import commands  # at the first request (see `code_action`)

    return await commands.run_verify(ls, args)


@server.command(CMD_FINGERPRINT)
@never_raises(default=None)
def fingerprint(ls: ProctorServer, *args: Any) -> dict[str, Any] | None:
    from lsp_server import commands  # at the first request (see `code_action`)

    return commands.fingerprint(ls, args)


def result_for(ls: ProctorServer, uri: str) -> LintResult | None:
    doc = ls.docs.get(uri)
    return ls.engine.result(doc) if doc is not None else None
