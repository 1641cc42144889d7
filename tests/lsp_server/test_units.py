"""The pure pieces: column conversion, LSP line splitting and incremental edits, noqa edits, settings."""

from __future__ import annotations

import pytest
from lsprotocol import types

from core.diagnostics import Range, TextEdit
from lsp_server import actions, convert
from lsp_server.documents import Document, DocumentStore, split_lines
from lsp_server.engine import Engine
from lsp_server.publisher import Publisher
from lsp_server.settings import Settings, parse_settings


@pytest.mark.parametrize(
    ("line", "column", "utf16", "utf8"),
    [
        ("abc", 2, 2, 2),
        ("é = 1", 1, 1, 2),
        ("x = '😀' + y", 6, 7, 9),
        ("x = '😀' + y", 7, 8, 10),
        ("naïve 👍🏽 ok", 9, 11, 16),
        ("short", 99, 5, 5),
    ],
)
def test_convert_column_both_ways(line: str, column: int, utf16: int, utf8: int) -> None:
    assert convert.convert_column(line, column, convert.UTF16, to_client=True) == utf16
    assert convert.convert_column(line, column, convert.UTF8, to_client=True) == utf8
    assert convert.convert_column(line, column, convert.UTF32, to_client=True) == min(column, len(line))
    back = min(column, len(line))
    assert convert.convert_column(line, utf16, convert.UTF16, to_client=False) == back
    assert convert.convert_column(line, utf8, convert.UTF8, to_client=False) == back


def test_a_client_column_inside_a_surrogate_pair_maps_to_the_character() -> None:
    assert convert.convert_column("a😀b", 2, convert.UTF16, to_client=False) == 2
    assert convert.convert_column("a😀b", 3, convert.UTF16, to_client=False) == 2


def test_lines_break_only_where_lsp_says() -> None:
    text = "a\x0cb\u2028c\r\nd\re\n"
    assert split_lines(text) == ["a\x0cb\u2028c", "d", "e", ""]


def test_incremental_edits_after_form_feed_and_emoji() -> None:
    doc = Document("file:///x.py", "x = 1\x0c  # 😀 here\nprint(x)\n", 1)
    # Replace "here" (UTF-16 columns: the emoji counts 2) on the first LSP line.
    start = "x = 1\x0c  # 😀 ".encode("utf-16-le")
    col = len(start) // 2
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, col), types.Position(0, col + 4)), text="there"
    )
    doc.apply_change(change, convert.UTF16)
    assert doc.text == "x = 1\x0c  # 😀 there\nprint(x)\n"
    doc.apply_change(
        types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(1, 6), types.Position(1, 7)), text="y"
        ),
        convert.UTF16,
    )
    assert doc.lines == ["x = 1\x0c  # 😀 there", "print(y)", ""]
    doc.apply_change(types.TextDocumentContentChangeWholeDocument(text="new"), convert.UTF16)
    assert doc.lines == ["new"]


@pytest.mark.parametrize(
    ("line", "markdown", "expected"),
    [
        ("x = 1", False, "x = 1  # proctor: noqa: EV011"),
        ("x = 1  # comment", False, "x = 1  # comment  # proctor: noqa: EV011"),
        ("x = 1  # proctor: noqa: EV009", False, "x = 1  # proctor: noqa: EV009, EV011"),
        ("x = 1  # proctor: noqa", False, None),
        ("x = 1  # proctor: noqa: EV011", False, None),
        ("Measured by AUC.", True, "Measured by AUC. <!-- proctor: noqa: EV011 -->"),
        (
            "Measured by AUC. <!-- proctor: noqa: BR004 -->",
            True,
            "Measured by AUC. <!-- proctor: noqa: BR004, EV011 -->",
        ),
    ],
)
def test_noqa_edit(line: str, markdown: bool, expected: str | None) -> None:
    edit = actions.noqa_edit("f", [line], 0, "EV011", markdown=markdown)
    if expected is None:
        assert edit is None
        return
    assert edit is not None
    start, end = edit.range.start.character, edit.range.end.character
    assert line[:start] + edit.new_text + line[end:] == expected


def test_noqa_code_under_cursor() -> None:
    line = "import socket  # proctor: noqa: EV009, EV011"
    assert actions.noqa_code_at(line, line.index("EV011") + 1) == ("EV011", line.index("EV011"), len(line))
    assert actions.noqa_code_at(line, 3) is None


def test_fix_all_takes_non_overlapping_fixes_in_order() -> None:
    from core.diagnostics import Diagnostic, Fix, Severity

    def diag(code: str, edit: TextEdit) -> Diagnostic:
        return Diagnostic(code, code, Severity.ERROR, "f.md", edit.range, "m", Fix("t", (edit,)))

    a = diag("BR002", TextEdit("f.md", Range.of(0, 5, 0, 5), " on data"))
    b = diag("BR003", TextEdit("f.md", Range.of(0, 5, 0, 5), ", 80/20"))
    c = diag("BR004", TextEdit("f.md", Range.of(0, 0, 0, 9), "replaced"))
    edits = actions.fix_all_edits([a, b, c], "f.md", "Measured by x\n")
    assert [e.new_text for e in edits] == [" on data", ", 80/20"]


def test_fix_all_leaves_unsafe_fixes_to_their_own_quick_fix() -> None:
    from core.diagnostics import Applicability, Diagnostic, Fix, Severity

    safe = TextEdit("f.py", Range.of(0, 0, 0, 0), "import random\n")
    unsafe = TextEdit("f.py", Range.of(1, 11, 1, 11), ", strict=True")
    diagnostics = [
        Diagnostic(
            "EV019",
            "truncating-zip",
            Severity.ERROR,
            "f.py",
            unsafe.range,
            "m",
            Fix("Add `strict=True`", (unsafe,), applicability=Applicability.UNSAFE),
        ),
        Diagnostic(
            "EV009", "unseeded-randomness", Severity.ERROR, "f.py", safe.range, "m", Fix("Seed", (safe,))
        ),
    ]
    edits = actions.fix_all_edits(diagnostics, "f.py", "x = 1\nfor a in zip(p, q): pass\n")
    assert [e.new_text for e in edits] == ["import random\n"]


def test_settings_accept_client_shapes_and_report_bad_values() -> None:
    settings, problems = parse_settings(
        {"proctor": {"select": "EV, BR", "debounceMs": 0, "interpreter": ["py"]}}
    )
    assert settings == Settings(select=("EV", "BR"), debounce_ms=0) and problems == []
    settings, problems = parse_settings({"ignore": [1], "debounceMs": -5}, settings)
    assert settings.debounce_ms == 0 and settings.ignore == ()
    assert len(problems) == 2 and all("proctor." in p for p in problems)
    assert parse_settings("nonsense")[1] == ["settings must be an object, got str"]


def test_incremental_edits_keep_the_lines_of_a_fresh_split() -> None:
    """Random edits with every kind of line break (a "\\r" meeting a "\\n", ranges past the end of a line or
    of the document, reversed ranges): the lines kept edit by edit equal a split of the new text."""
    import random

    rng = random.Random(11)
    pieces = ["a", "bc", "\n", "\r", "\r\n", "\n\r", "😀", "\x0c", "\u2028", "", "x\ny", "\r\r\n"]
    text = "line one\r\nline two\rthree\n\nfive 😀\n"
    doc = Document("file:///x.py", text, 1)
    for _ in range(600):
        lines = split_lines(text)
        start_line = rng.randrange(len(lines) + 1)
        end_line = rng.choice([start_line, start_line + rng.randrange(3), max(0, start_line - 1)])
        start = types.Position(start_line, rng.randrange(12))
        end = types.Position(end_line, rng.randrange(12))
        inserted = "".join(rng.choice(pieces) for _ in range(rng.randrange(3)))
        doc.apply_change(
            types.TextDocumentContentChangePartial(range=types.Range(start, end), text=inserted), "utf-32"
        )
        reference = Document("file:///y.py", text, 1)
        expected_start = reference.offset_at(start, "utf-32")
        expected_end = max(expected_start, reference.offset_at(end, "utf-32"))
        text = text[:expected_start] + inserted + text[expected_end:]
        assert doc.text == text
        assert doc.lines == split_lines(text), repr(text)
        if not text:
            text = "restart\r\n"
            doc = Document("file:///x.py", text, 1)


def test_each_line_starts_where_the_text_says() -> None:
    """A line's offset is where its text starts (each line break counted with its own length)."""
    import re

    text = "one\r\ntwo\rthree\n\nfive 😀\r\n\rlast"
    doc = Document("file:///x.py", text, 1)
    starts = [0] + [match.end() for match in re.finditer(r"\r\n|\r|\n", text)]
    assert [doc.offset_at(types.Position(line, 0), "utf-32") for line in range(len(starts))] == starts
    assert doc.offset_at(types.Position(len(starts), 0), "utf-32") == len(text)


def test_full_collections_wait_until_the_server_is_idle() -> None:
    """Messages keep postponing the full collection; it runs once after they stop, and the automatic one
    is switched off (it would pause whichever keystroke triggered it)."""
    import asyncio
    import gc

    from lsp_server.idle_gc import NO_AUTOMATIC_FULL, IdleCollector

    async def typing_then_idle() -> tuple[int, int]:
        collector = IdleCollector(idle_seconds=0.5)
        for _ in range(6):
            collector.poke()
            await asyncio.sleep(0.02)
        during = collector.collections
        await asyncio.sleep(1.5)
        return during, collector.collections

    assert asyncio.run(typing_then_idle()) == (0, 1)
    before = gc.get_threshold()
    try:
        IdleCollector().install()
        assert gc.get_threshold()[2] == NO_AUTOMATIC_FULL
    finally:
        gc.set_threshold(*before)


def test_typing_longer_than_the_quiet_time_never_collects() -> None:
    """The collector's one timer fires while messages still arrive: it waits again, it does not collect."""
    import asyncio

    from lsp_server.idle_gc import IdleCollector

    async def typing_then_idle() -> tuple[int, int]:
        collector = IdleCollector(idle_seconds=0.2)
        for _ in range(20):  # 0.6 s of typing: the timer fires meanwhile, more than once
            collector.poke()
            await asyncio.sleep(0.03)
        during = collector.collections
        await asyncio.sleep(0.6)
        return during, collector.collections

    assert asyncio.run(typing_then_idle()) == (0, 1)


def test_warm_up_lints_and_serializes_real_diagnostics() -> None:
    """The warm-up pays for a real lint and both diagnostic messages (a sample with nothing to report, or a
    serializer never called, would warm nothing)."""
    from core.config import Config
    from core.lint import lint_document
    from core.rules.base import DocumentKind, LintContext
    from lsp_server import warmup

    found = lint_document("e.py", warmup.SAMPLE, DocumentKind.EVALUATOR, LintContext(config=Config()))
    assert {"EV006", "EV009", "EV012"} <= {d.code for d in found}
    serialized: list[object] = []
    warmup.warm_up(serialized.append, convert.UTF16)
    push, pull = serialized
    assert isinstance(push, types.PublishDiagnosticsParams) and push.diagnostics
    assert isinstance(pull, types.RelatedFullDocumentDiagnosticReport) and pull.items == push.diagnostics


def test_client_features_from_capabilities_are_read_once_and_frozen() -> None:
    import dataclasses

    from lsp_server.client_features import ClientFeatures

    caps = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True, code_description_support=True
            ),
            diagnostic=types.DiagnosticClientCapabilities(),
        ),
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True, resource_operations=[types.ResourceOperationKind.Delete]
            ),
            configuration=True,
        ),
    )
    features = ClientFeatures.from_capabilities(caps, convert.UTF8)
    assert features == ClientFeatures(
        encoding=convert.UTF8,
        related_information=True,
        code_description=True,
        pull=True,
        document_changes=True,
        delete_files=True,
        configuration=True,
    )
    assert ClientFeatures.from_capabilities(types.ClientCapabilities(), convert.UTF16) == ClientFeatures()
    with pytest.raises(dataclasses.FrozenInstanceError):
        features.pull = False  # type: ignore[misc]


def test_push_delay_adapts_to_what_an_edit_lint_costs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap lints (and the first edit, cost unknown) run at once; slow ones are debounced with a leading edge."""
    engine = Engine(DocumentStore())
    engine.set_settings(Settings(debounce_ms=50))
    publisher = Publisher(engine, lambda _uri, _items, _version: None)
    now = [100.0]
    monkeypatch.setattr("lsp_server.publisher.time.monotonic", lambda: now[0])
    uri = "file:///w/evaluate.py"
    publisher._last_lint[uri] = now[0]  # the open was just linted
    assert publisher.delay(uri, immediate=False) == 0.0  # first edit: its cost is not known yet
    publisher._cost[uri] = 0.004  # 4 ms of CPU
    assert publisher.delay(uri, immediate=False) == 0.0
    publisher._cost[uri] = 0.024  # 24 ms (an edit in a long function): still under half of 50 ms
    assert publisher.delay(uri, immediate=False) == 0.0
    publisher._cost[uri] = 0.026  # just over half: debounced, the last lint being this recent
    assert publisher.delay(uri, immediate=False) == 0.05
    publisher._cost[uri] = 0.2  # a slow lint, right after the last one: coalesced
    assert publisher.delay(uri, immediate=False) == 0.05
    now[0] += 0.06  # after a quiet spell: the leading edge
    assert publisher.delay(uri, immediate=False) == 0.0
    assert publisher.delay(uri, immediate=True) == 0.0


def test_warm_up_reads_a_brief_and_each_typing_message_once() -> None:
    """The first edit's didChange and the first brief must not pay for readers built on first use."""
    from core.brief import parse_brief
    from lsp_server import warmup
    from lsp_server.server import ProctorServer

    protocol = ProctorServer().protocol
    read: list[object] = []

    def structure(data: dict[str, object]) -> object:
        message = protocol.structure_message(data)
        read.append(message)
        return message

    warmup.warm_up(lambda _value: None, convert.UTF16, structure)
    assert [type(m).__name__ for m in read] == [
        "DidOpenTextDocumentNotification",
        "DidChangeTextDocumentNotification",
        "DidSaveTextDocumentNotification",
        "DocumentDiagnosticRequest",
        "CodeActionRequest",
        "DidCloseTextDocumentNotification",
    ]
    brief = parse_brief(warmup.SAMPLE_BRIEF)
    assert brief.protocol is not None and brief.protocol.print_name == "auc"
