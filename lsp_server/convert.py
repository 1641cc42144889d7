"""Conversions between `core` values and LSP types. No decisions here, only translation.

Core positions are zero-based lines and code-point columns; LSP columns are counted in the negotiated
position encoding (UTF-16 code units unless the client offered utf-8 or utf-32). All column maths happens in
`convert_column`, the one place that knows about encodings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lsprotocol import types

from core.diagnostics import Position, Range, Severity, TextEdit

if TYPE_CHECKING:
    from core.diagnostics import Diagnostic

SOURCE = "proctor"
MEMO_LIMIT = 8192  # converted diagnostics kept per converter (a few documents' worth)
UTF8 = types.PositionEncodingKind.Utf8.value
UTF16 = types.PositionEncodingKind.Utf16.value
UTF32 = types.PositionEncodingKind.Utf32.value

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}

LinesOf = Callable[[str], Sequence[str]]
"""Lines of a workspace-relative path (buffer or disk), used to convert positions in other files."""


def convert_column(line: str, column: int, encoding: str, *, to_client: bool) -> int:
    """Code-point column <-> client column on `line`, clamped to the line's length.

    UTF-16 counts two units for characters outside the BMP (emoji), UTF-8 one to four bytes. A client column
    that falls inside a character maps to the character's start.
    """
    if encoding == UTF32 or line.isascii():
        return max(0, min(column, len(line)))
    if to_client:
        prefix = line[: max(column, 0)]
        if encoding == UTF8:
            return len(prefix.encode("utf-8", "surrogatepass"))
        return len(prefix.encode("utf-16-le", "surrogatepass")) // 2
    units = 0
    for index, char in enumerate(line):
        if units >= column:
            return index
        code = ord(char)
        if encoding == UTF8:
            units += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        else:
            units += 2 if code > 0xFFFF else 1
    return len(line)


def _line(lines: Sequence[str], number: int) -> str:
    return lines[number] if 0 <= number < len(lines) else ""


def to_lsp_position(position: Position, lines: Sequence[str], encoding: str) -> types.Position:
    line = max(position.line, 0)
    if lines and line >= len(lines):
        # Past the end (a stale or whole-file range): the end of the last line.
        last = len(lines) - 1
        return types.Position(last, convert_column(lines[last], len(lines[last]), encoding, to_client=True))
    return types.Position(
        line, convert_column(_line(lines, line), position.character, encoding, to_client=True)
    )


def to_lsp_range(range_: Range, lines: Sequence[str], encoding: str) -> types.Range:
    return types.Range(
        to_lsp_position(range_.start, lines, encoding), to_lsp_position(range_.end, lines, encoding)
    )


def from_lsp_position(position: types.Position, lines: Sequence[str], encoding: str) -> Position:
    line = position.line
    return Position(line, convert_column(_line(lines, line), position.character, encoding, to_client=False))


def from_lsp_range(range_: types.Range, lines: Sequence[str], encoding: str) -> Range:
    return Range(
        from_lsp_position(range_.start, lines, encoding), from_lsp_position(range_.end, lines, encoding)
    )


@dataclass(frozen=True)
class DiagnosticConverter:
    """Core diagnostics as one client sees them, for one workspace: the position encoding, the extras the
    client declared support for, and where related locations in other files are read from."""

    encoding: str
    uri_of: Callable[[str], str]
    lines_of: LinesOf
    related_support: bool = False
    code_description_support: bool = False
    # (diagnostic, the lines it sits on) -> its LSP form: most of a lint's diagnostics are the last lint's,
    # so the same objects are handed out again (the protocol serializes each object once, `DiagnosticJson`).
    _memo: dict[tuple[object, ...], types.Diagnostic] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def to_lsp(self, diagnostic: Diagnostic, lines: Sequence[str]) -> types.Diagnostic:
        """One diagnostic of the document whose `lines` these are."""
        related = None
        if self.related_support and diagnostic.related:
            related = [
                types.DiagnosticRelatedInformation(
                    location=types.Location(
                        self.uri_of(r.path), to_lsp_range(r.range, self.lines_of(r.path), self.encoding)
                    ),
                    message=r.message,
                )
                for r in diagnostic.related
            ]
        docs = types.CodeDescription(href=diagnostic.url) if self.code_description_support else None
        return types.Diagnostic(
            range=to_lsp_range(diagnostic.range, lines, self.encoding),
            message=diagnostic.message,
            severity=_SEVERITY.get(diagnostic.severity, types.DiagnosticSeverity.Warning),
            code=diagnostic.code,
            code_description=docs,
            source=SOURCE,
            related_information=related,
        )

    def all_to_lsp(self, diagnostics: Iterable[Diagnostic], lines: Sequence[str]) -> list[types.Diagnostic]:
        return [self.memoized(d, lines) for d in diagnostics]

    def memoized(self, diagnostic: Diagnostic, lines: Sequence[str]) -> types.Diagnostic:
        """`to_lsp`, the same object again while the diagnostic and the text of its lines are unchanged
        (related locations in other files are read again every time)."""
        if self.related_support and diagnostic.related:
            return self.to_lsp(diagnostic, lines)
        start, end = max(diagnostic.range.start.line, 0), max(diagnostic.range.end.line, 0)
        past_end = bool(lines) and max(start, end) >= len(lines)
        key = (
            diagnostic,
            _line(lines, start),
            _line(lines, end),
            len(lines) if past_end else -1,
            lines[-1] if past_end else "",
        )
        found = self._memo.get(key)
        if found is None:
            if len(self._memo) >= MEMO_LIMIT:
                self._memo.clear()
            found = self._memo[key] = self.to_lsp(diagnostic, lines)
        return found


def to_lsp_text_edit(edit: TextEdit, lines: Sequence[str], encoding: str) -> types.TextEdit:
    return types.TextEdit(range=to_lsp_range(edit.range, lines, encoding), new_text=edit.new_text)


def to_lsp_workspace_edit(
    edits: Iterable[TextEdit],
    *,
    deletes: Iterable[str] = (),
    uri_of: Callable[[str], str],
    lines_of: LinesOf,
    versions: Mapping[str, int | None],
    encoding: str,
    document_changes: bool,
) -> types.WorkspaceEdit:
    """Text edits grouped per file (document changes with versions when the client supports them)."""
    grouped: dict[str, list[types.TextEdit]] = {}
    for edit in edits:
        grouped.setdefault(edit.path, []).append(to_lsp_text_edit(edit, lines_of(edit.path), encoding))
    if not document_changes:
        return types.WorkspaceEdit(changes={uri_of(path): items for path, items in grouped.items()})
    changes: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = [
        types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=uri_of(path), version=versions.get(path)
            ),
            edits=list(items),
        )
        for path, items in grouped.items()
    ]
    changes.extend(
        types.DeleteFile(uri=uri_of(path), options=types.DeleteFileOptions(ignore_if_not_exists=True))
        for path in deletes
    )
    return types.WorkspaceEdit(document_changes=changes)


def to_lsp_markdown(value: str) -> types.MarkupContent:
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=value)


def to_lsp_hover(markdown: str, range_: Range, lines: Sequence[str], encoding: str) -> types.Hover:
    return types.Hover(contents=to_lsp_markdown(markdown), range=to_lsp_range(range_, lines, encoding))


def to_lsp_message_type(ok: bool) -> types.MessageType:
    return types.MessageType.Info if ok else types.MessageType.Warning
