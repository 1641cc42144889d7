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

from lsp_server.convert import convert_column

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines as LSP counts them, without their terminators (`"a\\n"` is two lines, the last empty)."""
    return _LINE_BREAK.split(text)


def uri_to_path(uri: str) -> Path | None:
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return Path(path) if path else None


@dataclass
class Document:
    uri: str
    text: str
    version: int | None
    language_id: str = ""
    path: Path | None = None
    _lines: list[str] | None = field(default=None, repr=False)
    _starts: list[int] | None = field(default=None, repr=False)

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def _line_starts(self) -> list[int]:
        if self._starts is None:
            starts = [0]
            starts.extend(match.end() for match in _LINE_BREAK.finditer(self.text))
            self._starts = starts
        return self._starts

    def offset_at(self, position: types.Position, encoding: str) -> int:
        """Code-point offset of a client position; positions past the end clamp to the end."""
        starts = self._line_starts()
        if position.line >= len(starts):
            return len(self.text)
        line = self.lines[position.line]
        return starts[position.line] + convert_column(line, position.character, encoding, to_client=False)

    def apply_change(self, change: types.TextDocumentContentChangeEvent, encoding: str) -> None:
        if isinstance(change, types.TextDocumentContentChangePartial):
            start = self.offset_at(change.range.start, encoding)
            end = max(start, self.offset_at(change.range.end, encoding))
            self.text = self.text[:start] + change.text + self.text[end:]
        else:
            self.text = change.text
        self._lines = None
        self._starts = None


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
