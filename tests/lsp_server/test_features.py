"""Code actions, hover, UTF-16/UTF-8/UTF-32 positions, rapid edits, live integrity and commands, end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from core import registry
from core.config import Config
from core.integrity.manifest import snapshot
from core.lint import classify, lint_document
from core.rules.base import LintContext
from lsp_server import convert
from lsp_server.documents import split_lines
from tests.lsp_server.conftest import (
    BRIEF,
    EVALUATOR,
    PRINT_LINE,
    change_doc,
    codes,
    diagnostics,
    edit,
    no_error_messages,
    open_doc,
    pushed,
    replace_all,
    start,
)

pytestmark = pytest.mark.asyncio

BAD_BRIEF = "# Goal\nPredict churn.\n\nMeasured by AUC on kapso_datasets/churn.csv.\n"


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (ASCII text, so columns are code points) the way a client does: end to start."""
    lines = split_lines(text)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(p: types.Position) -> int:
        return starts[p.line] + p.character

    for e in sorted(edits, key=lambda e: (offset(e.range.start), offset(e.range.end)), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


def edits_for(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None
    if action.edit.changes is not None:
        return list(action.edit.changes[uri])
    found: list[types.TextEdit] = []
    for change in action.edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri:
            found.extend(e for e in change.edits if isinstance(e, types.TextEdit))
    return found


async def actions(
    client: LanguageClient, uri: str, line: int, only: list[str] | None = None
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def test_quick_fixes_disable_and_fix_all(client: LanguageClient, workspace: Path) -> None:
    (workspace / "brief.md").write_text(BAD_BRIEF, encoding="utf-8")
    await start(client, workspace, "visual_studio_code")
    uri = open_doc(client, workspace / "brief.md")
    before = codes(await pushed(client, uri, version=1))
    assert {"BR003", "BR004", "BR005", "BR006"} <= set(before)

    found = await actions(client, uri, 3)
    titles = [a.title for a in found]
    assert "Append `seed <n>`" in titles
    assert "Disable BR004 for this line" in titles
    seed = next(a for a in found if a.title == "Append `seed <n>`")
    assert seed.kind == types.CodeActionKind.QuickFix
    assert seed.diagnostics and seed.diagnostics[0].code == "BR004"
    fixed = apply(BAD_BRIEF, edits_for(seed, uri))
    assert "seed" in fixed

    disable = next(a for a in found if a.title == "Disable BR004 for this line")
    silenced = apply(BAD_BRIEF, edits_for(disable, uri))
    assert silenced.splitlines()[3].endswith(" <!-- proctor: noqa: BR004 -->")
    change_doc(client, uri, 2, replace_all(silenced))
    after = codes(await pushed(client, uri, version=2))
    assert "BR004" not in after and "BR003" in after

    # A second code on the same line extends the existing comment.
    again = next(a for a in await actions(client, uri, 3) if a.title == "Disable BR003 for this line")
    assert (
        apply(silenced, edits_for(again, uri))
        .splitlines()[3]
        .endswith("<!-- proctor: noqa: BR004, BR003 -->")
    )

    # Fix-all applies what `proctor check --fix` applies: safe fixes only. The brief's templates are unsafe
    # (placeholders the author must fill), so each is offered as its own quick fix and fix-all leaves it.
    line_actions = await actions(client, uri, 3)
    offered = {a.title for a in line_actions if a.kind == types.CodeActionKind.QuickFix}
    assert {"Append a `<split: ...>` blank to fill in", "Append a print format"} <= offered
    template = next(a for a in line_actions if a.title == "Append a print format")
    assert apply(silenced, edits_for(template, uri)) != silenced
    assert await actions(client, uri, 0, only=["source.fixAll.proctor"]) == []

    # A safe fix (BR010, invisible characters) is applied by fix-all; the unsafe templates still are not.
    hidden = silenced.replace("Predict churn.", "Predict\u200b churn.")
    change_doc(client, uri, 3, replace_all(hidden))
    assert "BR010" in codes(await pushed(client, uri, version=3))
    fix_all = await actions(client, uri, 0, only=["source.fixAll.proctor"])
    assert [a.kind for a in fix_all] == ["source.fixAll.proctor"]
    repaired = apply(hidden, edits_for(fix_all[0], uri))
    assert repaired == silenced, repaired
    change_doc(client, uri, 4, replace_all(repaired))
    remaining = codes(await pushed(client, uri, version=4))
    assert "BR010" not in remaining and {"BR003", "BR005", "BR006"} <= set(remaining), remaining
    no_error_messages(client)


async def test_hover_protocol_and_rule_docs(client: LanguageClient, workspace: Path) -> None:
    text = BRIEF + "\nAlso: <!-- proctor: noqa: BR009 -->\n"
    (workspace / "brief.md").write_text(text, encoding="utf-8")
    await start(client, workspace, "neovim")
    uri = open_doc(client, workspace / "brief.md")
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri=uri), types.Position(3, 5))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Proctor protocol" in hover.contents.value
    assert "`80/20" in hover.contents.value and "`auc: <value>`" in hover.contents.value
    assert hover.range is not None and hover.range.start.line == 3 and hover.range.end.line == 4

    line = text.splitlines().index("Also: <!-- proctor: noqa: BR009 -->")
    column = text.splitlines()[line].index("BR009") + 2
    docs = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri=uri), types.Position(line, column))
    )
    assert docs is not None and isinstance(docs.contents, types.MarkupContent)
    assert "BR009" in docs.contents.value and "## What it does" in docs.contents.value
    nothing = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri=uri), types.Position(1, 2))
    )
    assert nothing is None


EMOJI_BRIEF = (
    "# Goal\nauc above 0.9 — très bien 👍\n\n"
    "Measured by accuracy 😀 (higher is better) on kapso_datasets/churn.csv, an 80/20 split with seed 42, "
    "printed as `accuracy: <value>` ✓.\n"
)


@pytest.mark.parametrize(
    ("profile", "encoding"),
    [("visual_studio_code", convert.UTF16), ("neovim@v0.11", convert.UTF8), ("emacs", convert.UTF32)],
)
async def test_positions_with_emoji_and_accents(
    client: LanguageClient, workspace: Path, profile: str, encoding: str
) -> None:
    (workspace / "brief.md").write_text(EMOJI_BRIEF, encoding="utf-8")
    result = await start(client, workspace, profile)
    assert result.capabilities.position_encoding == encoding
    uri = open_doc(client, workspace / "brief.md")
    items = await diagnostics(client, uri, version=1, until=lambda ds: "BR008" in codes(ds))
    line = EMOJI_BRIEF.splitlines()[3]
    start_cp = line.index("`accuracy") + 1
    mismatch = next(d for d in items if d.code == "BR008")
    expected_start = convert.convert_column(line, start_cp, encoding, to_client=True)
    assert mismatch.range.start == types.Position(3, expected_start)
    units = {
        convert.UTF16: start_cp + 1,
        convert.UTF8: len(line[:start_cp].encode()),
        convert.UTF32: start_cp,
    }
    assert expected_start == units[encoding]  # the emoji is 2 UTF-16 units and 4 UTF-8 bytes
    assert mismatch.range.end == types.Position(3, expected_start + len("accuracy"))

    # An incremental edit addressed in the client's units lands on the right characters.
    change_doc(client, uri, 2, edit(3, expected_start, 3, expected_start + len("accuracy"), "auc"))
    items = await diagnostics(client, uri, version=2, until=lambda ds: "BR008" not in codes(ds))
    assert "BR008" not in codes(items)
    change_doc(client, uri, 3, edit(3, expected_start, 3, expected_start + len("auc"), "f1"))
    items = await diagnostics(client, uri, version=3, until=lambda ds: "BR008" in codes(ds))
    mismatch = next(d for d in items if d.code == "BR008")
    assert mismatch.range.start == types.Position(3, expected_start)
    assert mismatch.range.end == types.Position(3, expected_start + 2)


TYPED = '''
def summarize(scores: list[float]) -> dict[str, float]:
    """Mean and spread, for the log (never printed to stdout)."""
    total = sum(scores)
    mean = total / max(len(scores), 1)
    spread = max(scores) - min(scores) if scores else 0.0
    return {"mean": mean, "spread": spread}
'''


@pytest.mark.parametrize("profile", ["neovim@v0.9", "vscode_pull"])
async def test_rapid_edits_end_equal_to_core_lint(
    client: LanguageClient, workspace: Path, profile: str
) -> None:
    """Hundreds of keystrokes through broken mid-typing states: no error pop-up, no crash, and the final
    diagnostics are exactly `core.lint` on the final text."""
    await start(client, workspace, profile)
    path = workspace / "kapso_evaluation" / "evaluate.py"
    uri = open_doc(client, path)
    await diagnostics(client, uri, version=1)
    text = EVALUATOR
    version = 1
    insert_at = PRINT_LINE - 8  # inside main(): typing a nested function there breaks the syntax for a while
    line_no, col = insert_at, 0
    for char in TYPED:
        version += 1
        change_doc(client, uri, version, edit(line_no, col, line_no, col, char))
        if char == "\n":
            line_no, col = line_no + 1, 0
        else:
            col += 1
    lines = text.splitlines(keepends=True)
    text = "".join(lines[:insert_at]) + TYPED + "".join(lines[insert_at:])
    # ... then backspace the print's metric name and retype it.
    print_line = text.splitlines().index('    print(f"auc: {auc:.4f}")')
    start_col = text.splitlines()[print_line].index("auc:")
    for step in range(3):
        version += 1
        change_doc(
            client, uri, version, edit(print_line, start_col + 2 - step, print_line, start_col + 3 - step, "")
        )
    for offset, char in enumerate("roc_auc"):
        version += 1
        change_doc(
            client, uri, version, edit(print_line, start_col + offset, print_line, start_col + offset, char)
        )
    text = text.replace('print(f"auc: ', 'print(f"roc_auc: ')
    assert version > 250

    items = await diagnostics(client, uri, version=version)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri=uri), types.Position(0, 0))
    )
    assert hover is None  # still answering

    config = Config()
    relpath = "kapso_evaluation/evaluate.py"
    ctx = LintContext(
        config, workspace, lambda rel: (workspace / rel).read_text() if (workspace / rel).is_file() else None
    )
    expected = lint_document(relpath, text, classify(relpath, config), ctx)  # type: ignore[arg-type]
    lines_now = split_lines(text)
    assert [(d.code, d.range, d.message) for d in items] == [
        (e.code, convert.to_lsp_range(e.range, lines_now, convert.UTF16), e.message) for e in expected
    ]
    no_error_messages(client)


def register(workspace: Path) -> str:
    """`proctor registry register`, in-process: Kapso's registry format, written by core."""
    entry = registry.register(workspace, workspace / "kapso_evaluation", "provided", "test suite")
    return entry.evaluator_id


def in_codes(items: list[types.Diagnostic]) -> list[str]:
    return [c for c in codes(items) if c.startswith("IN")]


async def test_live_integrity(client: LanguageClient, workspace: Path) -> None:
    helper = workspace / "kapso_evaluation" / "helpers.py"
    helper.write_text("def mean(xs):\n    return sum(xs) / len(xs)\n", encoding="utf-8")
    await start(client, workspace, "visual_studio_code")
    path = workspace / "kapso_evaluation" / "evaluate.py"
    uri = open_doc(client, path)
    await pushed(client, uri, version=1)
    # Not registered yet: the author is still writing the suite, nothing is flagged.
    change_doc(client, uri, 2, edit(0, 0, 0, 0, "# draft\n"))
    assert in_codes(await pushed(client, uri, version=2)) == []
    change_doc(client, uri, 3, edit(0, 0, 1, 0, ""))
    await pushed(client, uri, version=3)
    registry = (workspace / ".kapso" / "evaluation_registry.json").as_uri()
    # Nothing was ever shown on the registry file, so nothing (not even an empty list) is pushed to it.
    assert registry not in client.recorder.published  # type: ignore[attr-defined]

    register(workspace)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(uri=registry, type=types.FileChangeType.Created)])
    )
    change_doc(client, uri, 4, edit(0, 0, 0, 0, "# tweak\n"))
    items = await pushed(client, uri, version=4, until=lambda ds: "IN001" in codes(ds))
    in001 = next(d for d in items if d.code == "IN001")
    assert in001.range.start == types.Position(0, 0)
    assert "a candidate with this change is rejected" in in001.message
    assert "register a new version" in in001.message
    change_doc(client, uri, 5, edit(0, 0, 1, 0, ""))
    assert in_codes(await pushed(client, uri, version=5)) == []

    # A deleted suite file and a new source file show on the nearest open suite document.
    helper.unlink()
    (workspace / "kapso_evaluation" / "extra.py").write_text("print('hi')\n", encoding="utf-8")
    (workspace / "kapso_evaluation" / "notes.txt").write_text("not source\n", encoding="utf-8")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [
                types.FileEvent(uri=helper.as_uri(), type=types.FileChangeType.Deleted),
                types.FileEvent(
                    uri=(workspace / "kapso_evaluation/extra.py").as_uri(), type=types.FileChangeType.Created
                ),
            ]
        )
    )
    items = await pushed(client, uri, until=lambda ds: in_codes(ds) == ["IN002", "IN005"])
    messages = " ".join(d.message for d in items)
    assert "kapso_evaluation/helpers.py" in messages and "kapso_evaluation/extra.py" in messages

    # With no suite document open they move to the registry file.
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    moved = await pushed(client, registry, until=lambda ds: in_codes(ds) == ["IN002", "IN005"])
    assert all(d.range.start == types.Position(0, 0) for d in moved)
    no_error_messages(client)


async def test_fingerprint_and_verify_commands(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace, "visual_studio_code")
    uri = open_doc(client, workspace / "kapso_evaluation" / "evaluate.py")
    await pushed(client, uri, version=1)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="proctor.fingerprint", arguments=[workspace.as_uri()])
    )
    assert result["evaluator_id"] == snapshot(workspace / "kapso_evaluation").evaluator_id
    assert "evaluate.py" in result["manifest"]

    report = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="proctor.verify", arguments=[uri])
    )
    assert report["verdict"] == "pass", report
    statuses = {c["id"]: c["status"] for c in report["clauses"]}
    assert statuses["runs"] == "pass" and statuses["metric-line"] == "pass"
    kinds = [getattr(v, "kind", None) for reports in client.progress_reports.values() for v in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    assert any(m.message.startswith("Proctor verify: pass") for m in client.messages)

    # A broken evaluator on disk: the failed clauses become diagnostics on the evaluator.
    broken = EVALUATOR.replace(
        '    print(f"auc: {auc:.4f}")\n', '    print(f"auc: {auc:.4f}", file=sys.stderr)\n'
    )
    (workspace / "kapso_evaluation" / "evaluate.py").write_text(broken, encoding="utf-8")
    change_doc(client, uri, 2, replace_all(broken))
    report = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="proctor.verify", arguments=[])
    )
    assert report["verdict"] == "fail"
    items = await pushed(client, uri, until=lambda ds: any(str(d.code).startswith("verify:") for d in ds))
    assert "verify:metric-line" in codes(items)
    assert any(m.type == types.MessageType.Warning and "fail" in m.message for m in client.messages)
    no_error_messages(client)
