"""Open editor buffers, kept in sync incrementally.

pygls' own store splits lines with `str.splitlines`, which also breaks on form feeds, `\\x1c`-`\\x1e` and
U+2028; LSP lines end only at `\\n`, `\\r\\n` or `\\r`, so an incremental edit after such a character would
land in the wrong place. This store follows the LSP definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from core.lines import split_lines
from lsp_server.convert import convert_column

__all__ = ["Document", "DocumentStore", "split_lines", "uri_to_path"]

_SPLIT_KEEP = re.compile(r"(\r\n|\r|\n)")


def _split_with_ends(text: str) -> tuple[list[str], list[str]]:
    """(lines, the terminator after each line: "" after the last one)."""
    parts = _SPLIT_KEEP.split(text)
    return parts[0::2], [*parts[1::2], ""]


def uri_to_path(uri: str) -> Path | None:
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return Path(path) if path else None


@dataclass
class Document:
    """One open buffer. Its lines are kept up to date edit by edit: splitting a 1,000-line text again on
    every keystroke costs more than the rest of applying the edit."""

    uri: str
    text: str
    version: int | None
    language_id: str = ""
    path: Path | None = None
    _lines: list[str] | None = field(default=None, repr=False)
    _ends: list[str] | None = field(default=None, repr=False)

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines, self._ends = _split_with_ends(self.text)
        return self._lines

    def _terminators(self) -> list[str]:
        if self._ends is None:
            self._lines, self._ends = _split_with_ends(self.text)
        return self._ends

    def _line_start(self, line: int) -> int:
        lines, ends = self.lines, self._terminators()
        # The length of the lines joined: a third of the time of adding up each line's length.
        return len("".join(lines[:line])) + len("".join(ends[:line]))

    def offset_at(self, position: types.Position, encoding: str) -> int:
        """Code-point offset of a client position; positions past the end clamp to the end."""
        lines = self.lines
        if position.line >= len(lines):
            return len(self.text)
        line = lines[position.line]
        return self._line_start(position.line) + convert_column(
            line, position.character, encoding, to_client=False
        )

    def _offset_below(self, line: int, line_start: int, position: types.Position, encoding: str) -> int:
        """`offset_at` for a position at or below `line`, which starts at offset `line_start`."""
        lines, ends = self.lines, self._terminators()
        if position.line >= len(lines):
            return len(self.text)
        if position.line < line:
            return self.offset_at(position, encoding)
        below = (
            line_start
            + sum(map(len, lines[line : position.line]))
            + sum(map(len, ends[line : position.line]))
        )
        return below + convert_column(lines[position.line], position.character, encoding, to_client=False)

    def apply_change(self, change: types.TextDocumentContentChangeEvent, encoding: str) -> None:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            self.text = change.text
            self._lines = self._ends = None
            return
        lines, ends = self.lines, self._terminators()
        # Re-split only the edited lines, from the line before them (a "\r" ending it may now meet a "\n").
        edited = min(change.range.start.line, len(lines) - 1)
        last = max(min(change.range.end.line, len(lines) - 1), edited)
        first = max(edited - 1, 0)
        window_start = self._line_start(first)  # the one sum over the lines above the edit
        start = self._offset_below(first, window_start, change.range.start, encoding)
        end = max(start, self._offset_below(first, window_start, change.range.end, encoding))
        self.text = self.text[:start] + change.text + self.text[end:]
        window_end = (
            window_start + sum(map(len, lines[first : last + 1])) + sum(map(len, ends[first : last + 1]))
        )
        new_lines, new_ends = _split_with_ends(
            self.text[window_start : window_end + len(change.text) - (end - start)]
        )
        if ends[last]:
            # The window ends with the last edited line's terminator: the empty piece after it is where the
            # next, unchanged line starts.
            new_lines.pop()
            new_ends.pop()
        # New lists, not slice assignment: a caller may still hold the old `lines`.
        self._lines = [*lines[:first], *new_lines, *lines[last + 1 :]]
        self._ends = [*ends[:first], *new_ends, *ends[last + 1 :]]


class DocumentStore:
    """uri -> Document for every buffer the client has open."""

    def __init__(self) -> None:
        self._docs: dict[str, Document] = {}
        self._by_path: dict[Path, Document] = {}

    def open(self, item: types.TextDocumentItem) -> Document:
        doc = Document(item.uri, item.text, item.version, item.language_id, uri_to_path(item.uri))
        self._docs[item.uri] = doc
        if doc.path is not None:
            self._by_path[doc.path] = doc
        return doc

    def change(self, params: types.DidChangeTextDocumentParams, encoding: str) -> Document | None:
        doc = self._docs.get(params.text_document.uri)
        if doc is None:
            return None
        for change in params.content_changes:
            doc.apply_change(change, encoding)
        doc.version = params.text_document.version
        return doc

    def close(self, uri: str) -> Document | None:
        doc = self._docs.pop(uri, None)
        if doc is not None and doc.path is not None and self._by_path.get(doc.path) is doc:
            del self._by_path[doc.path]
        return doc

    def get(self, uri: str) -> Document | None:
        return self._docs.get(uri)

    def by_path(self, path: Path) -> Document | None:
        return self._by_path.get(path)

    def all(self) -> list[Document]:
        return list(self._docs.values())
