"""Code actions, hover and the `proctor.verify` / `proctor.fingerprint` commands.

The decisions are `core`'s (fixes, the parsed protocol, rule docs, verify verdicts, the manifest); this module
turns them into LSP values for one document. Verify runs the evaluator for real, so it runs in a daemon thread
(never blocking the event loop or shutdown) with work-done progress when the client supports it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any
from typing import Protocol as Interface

from lsprotocol import types

from core.brief import Protocol, protocol_at
from core.diagnostics import Range
from core.errors import ProctorError
from lsp_server import actions, convert
from lsp_server.documents import Document, uri_to_path
from lsp_server.engine import VerifyOutcome

if TYPE_CHECKING:
    from pygls.progress import Progress
    from pygls.protocol import LanguageServerProtocol

    from core.diagnostics import Diagnostic, Fix, TextEdit
    from lsp_server.documents import DocumentStore
    from lsp_server.engine import Engine, LintResult, Root

log = logging.getLogger(__name__)


class Host(Interface):
    """What the commands need from the server (the server satisfies it; this module never imports it)."""

    engine: Engine
    docs: DocumentStore

    @property
    def protocol(self) -> LanguageServerProtocol: ...

    @property
    def work_done_progress(self) -> Progress: ...

    def window_show_message(self, params: types.ShowMessageParams) -> None: ...

    def relint_all(self, root: Root | None = None) -> None: ...


# -- code actions ---------------------------------------------------------------------------------------------


def _workspace_edit(
    engine: Engine, root: Root, edits: list[TextEdit], deletes: tuple[str, ...] = ()
) -> types.WorkspaceEdit:
    versions: dict[str, int | None] = {}
    for edit in edits:
        doc = engine.docs.by_path(root.path / edit.path)
        versions[edit.path] = doc.version if doc is not None else None
    return convert.to_lsp_workspace_edit(
        edits,
        deletes=deletes,
        uri_of=engine.uri_of(root),
        lines_of=engine.lines_of(root),
        versions=versions,
        encoding=engine.client.encoding,
        document_changes=engine.client.document_changes,
    )


def _lsp(engine: Engine, root: Root, doc: Document, diagnostic: Diagnostic) -> types.Diagnostic:
    return engine.converter(root).to_lsp(diagnostic, doc.lines)


def quick_fixes(
    engine: Engine, root: Root, doc: Document, result: LintResult, selection: Range
) -> list[types.CodeAction]:
    """Each autofix touching the selection, then "Disable CODE for this line" for each finding there."""
    found: list[types.CodeAction] = []
    for diagnostic, fix in actions.fixes_in(result.diagnostics, selection):
        action = _fix_action(engine, root, doc, diagnostic, fix)
        if action is not None:
            found.append(action)
    markdown = doc.path is not None and doc.path.suffix.lower() in (".md", ".markdown")
    seen: set[tuple[str, int]] = set()
    for diagnostic in result.diagnostics:
        line = diagnostic.range.start.line
        if (
            not actions.suppressible(diagnostic)
            or not actions.overlaps(diagnostic.range, selection)
            or (diagnostic.code, line) in seen
        ):
            continue
        seen.add((diagnostic.code, line))
        assert result.relpath is not None
        edit = actions.noqa_edit(result.relpath, doc.lines, line, diagnostic.code, markdown=markdown)
        if edit is None:
            continue
        found.append(
            types.CodeAction(
                title=f"Disable {diagnostic.code} for this line",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[_lsp(engine, root, doc, diagnostic)],
                edit=_workspace_edit(engine, root, [edit]),
            )
        )
    return found


def _fix_action(
    engine: Engine, root: Root, doc: Document, diagnostic: Diagnostic, fix: Fix
) -> types.CodeAction | None:
    if fix.delete_paths and not (engine.client.document_changes and engine.client.delete_files):
        return None  # the client cannot delete files through an edit; the fix would be half applied
    return types.CodeAction(
        title=fix.title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[_lsp(engine, root, doc, diagnostic)],
        is_preferred=True,
        edit=_workspace_edit(engine, root, list(fix.edits), fix.delete_paths),
    )


def fix_all_action(
    engine: Engine, root: Root, doc: Document, result: LintResult, kind: str
) -> types.CodeAction | None:
    if result.relpath is None:
        return None
    edits = actions.fix_all_edits(result.diagnostics, result.relpath, doc.text)
    if not edits:
        return None
    return types.CodeAction(
        title="Proctor: fix all auto-fixable problems",
        kind=kind,
        edit=_workspace_edit(engine, root, edits),
    )


# -- hover ----------------------------------------------------------------------------------------------------


def hover_markdown(
    doc: Document, position: types.Position, encoding: str, is_brief: bool
) -> tuple[str, Range] | None:
    """Rule docs on a noqa code; the parsed protocol on a brief's Measured-by line."""
    lines = doc.lines
    if not 0 <= position.line < len(lines):
        return None
    line = lines[position.line]
    character = convert.convert_column(line, position.character, encoding, to_client=False)
    code = actions.noqa_code_at(line, character)
    if code is not None:
        # The whole rule table (with the guard's IN rules) loads on the first hover of a noqa code, not at
        # start-up: the lint needs only its own rules.
        from core.rules.registry import get_rule

        rule = get_rule(code[0])
        if rule is not None:
            header = f"**{rule.code}** `{rule.name}` ({rule.severity.value})\n\n"
            return header + rule.doc, Range.of(position.line, code[1], position.line, code[2])
    if is_brief:
        protocol = protocol_at(doc.text, position.line)
        if protocol is not None:
            return protocol_markdown(protocol), protocol.range
    return None


def protocol_markdown(protocol: Protocol) -> str:
    rows = [
        ("data", protocol.data),
        ("split", protocol.split),
        ("seed", protocol.seed),
        ("metric", protocol.metric),
        ("direction", protocol.direction),
        ("printed as", protocol.print_format),
    ]
    table = ["| | |", "|---|---|"]
    for label, field in rows:
        value = f"`{field.value}`" if field is not None else "*missing*"
        table.append(f"| {label} | {value} |")
    text = "**Proctor protocol** (parsed from this `Measured by` line)\n\n" + "\n".join(table)
    if protocol.metric_name:
        text += f"\n\nThe evaluator's last stdout line must be `{protocol.metric_name}: <value>`."
    missing = protocol.missing()
    if missing:
        text += "\n\nMissing: " + ", ".join(missing) + "."
    return text


# -- commands -------------------------------------------------------------------------------------------------


def _target_root(ls: Host, args: tuple[Any, ...]) -> Root | None:
    """The workspace a command is for: a URI or path argument, else the first open document's, else the
    first workspace folder's."""
    for arg in args:
        value = arg.get("uri") if isinstance(arg, dict) else arg
        if isinstance(value, str) and value:
            path = uri_to_path(value) if value.startswith("file:") else Path(value)
            if path is not None:
                return ls.engine.root_for(path if path.is_file() else path / "_")
    for doc in ls.docs.all():
        if doc.path is not None:
            return ls.engine.root_for(doc.path)
    if ls.engine.folders:
        return ls.engine.root_for(ls.engine.folders[0] / "_")
    return None


def fingerprint(ls: Host, args: tuple[Any, ...]) -> dict[str, Any] | None:
    """The suite's manifest and evaluator_id (Kapso's), and the modes Proctor also records."""
    root = _target_root(ls, args)
    if root is None:
        _say(ls, types.MessageType.Warning, "Proctor: no workspace to fingerprint")
        return None
    # The suite hasher loads when a fingerprint is asked for, not at start-up.
    from core.integrity.manifest import snapshot

    suite = root.config.evaluation_dir
    try:
        snap = snapshot(root.path / suite)
    except ProctorError as exc:
        _say(ls, types.MessageType.Warning, f"Proctor: cannot fingerprint {suite}/: {exc}")
        return None
    _say(
        ls,
        types.MessageType.Info,
        f"Proctor: evaluator_id {snap.evaluator_id} ({len(snap.manifest)} files in {suite}/)",
    )
    return {"evaluator_id": snap.evaluator_id, "suite": suite, "manifest": snap.manifest, "modes": snap.modes}


def _settle(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _say(ls: Host, kind: types.MessageType, message: str) -> None:
    ls.window_show_message(types.ShowMessageParams(type=kind, message=message))


async def run_verify(ls: Host, args: tuple[Any, ...]) -> dict[str, Any] | None:
    """Run `core.verify` in a daemon thread with work-done progress; findings land on the evaluator."""
    from lsp_server import verify  # the runner and sandbox are imported when a verify is asked for

    root = _target_root(ls, args)
    if root is None:
        _say(ls, types.MessageType.Warning, "Proctor: no workspace to verify")
        return None
    loop = asyncio.get_running_loop()
    token: str | None = None
    if ls.engine.client.work_done_progress:
        token = f"proctor-verify-{uuid.uuid4().hex[:8]}"
        # Shielded: if the client cancels this command, the create request's own future is not cancelled,
        # so the client's late reply cannot trip pygls #621.
        created = asyncio.wrap_future(
            ls.protocol.send_request(
                types.WINDOW_WORK_DONE_PROGRESS_CREATE, types.WorkDoneProgressCreateParams(token)
            )
        )
        try:
            await asyncio.wait_for(asyncio.shield(created), timeout=10)
        except Exception:
            token = None
    if token is not None:
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title="Proctor: verify", percentage=0))
    done: asyncio.Future[tuple[dict[str, Any], VerifyOutcome | None]] = loop.create_future()

    def report(message: str, percentage: int | None) -> None:
        if token is not None:
            progress = types.WorkDoneProgressReport(message=message, percentage=percentage)
            loop.call_soon_threadsafe(ls.work_done_progress.report, token, progress)

    def work() -> None:
        try:
            answer = verify.run(root.path, root.config, report)
        except Exception as exc:
            log.exception("verify failed")
            answer = ({"schema": 1, "verdict": "error", "error": f"{type(exc).__name__}: {exc}"}, None)
        loop.call_soon_threadsafe(_settle, done, answer)

    threading.Thread(target=work, name="proctor-verify", daemon=True).start()
    result, outcome = await asyncio.shield(done)
    if token is not None:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=str(result.get("verdict"))))
    root.verify = outcome
    ok, message = verify.summary(result)
    _say(ls, convert.to_lsp_message_type(ok), message)
    ls.relint_all(root)
    return result
