"""Where a document's nodes sit and the text around them: lines, exact positions, parent links and the
edits a fix inserts.

`ast` reports UTF-8 byte columns, diagnostics use code points. A document is a list of placed chunks whose
positions are relative to the chunk: `start_of` finds a node's chunk and adds the chunk's line. Parent links
cross chunks (a top-level statement's parent is the module). `ChunkText` is one chunk as the per-chunk rules
see it: positions relative to the chunk, and a node of another chunk is an error, not a silent wrong place.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property

from core.diagnostics import Position, Range, TextEdit, byte_col_to_char
from core.errors import ForeignNodeError
from core.lines import split_lines
from core.rules.evaluator.analysis.chunks import Chunk, Placed
from core.rules.evaluator.analysis.cutter import OWNER, claim
from core.rules.evaluator.analysis.document import DocumentLines, Kids, Parents
from core.rules.evaluator.analysis.recorded import Lookup, Reader

__all__ = ["ChunkText", "SourceText"]


class SourceText:
    """A document's text and the positions of its nodes, read through its placed chunks."""

    def __init__(
        self,
        relpath: str,
        text: str,
        placed: Sequence[Placed],
        tree: ast.Module,
        parents: Mapping[ast.AST, ast.AST] | None = None,
        kids: Mapping[int, list[ast.AST]] | None = None,
    ) -> None:
        self.relpath = relpath
        self.text = text
        self.placed = placed
        self.tree = tree
        self.offsets: dict[int, int] = {id(p.chunk): p.line for p in placed}
        self.parents: Mapping[ast.AST, ast.AST] = Parents(self) if parents is None else parents
        self.kids: Mapping[int, list[ast.AST]] = Kids(self) if kids is None else kids

    def chunk_of(self, node: ast.AST) -> Chunk | None:
        """The chunk of this document that holds `node` (None for nodes built by a rule)."""
        chunk = OWNER.get(id(node))
        if chunk is not None and id(chunk) in self.offsets and id(node) in chunk.ids:
            return chunk
        if len(self.placed) == 1:
            only = self.placed[0].chunk
            return only if id(node) in only.ids else None
        for placed in self.placed:
            if id(node) in placed.chunk.ids:
                claim(placed.chunk)  # the next question about its nodes is answered by OWNER
                return placed.chunk
        return None

    @cached_property
    def lines(self) -> Sequence[str]:
        return DocumentLines(self.placed) if self.placed else split_lines(self.text)

    @cached_property
    def top_order(self) -> dict[int, int]:
        """id of each top-level statement -> its index in the module body."""
        return {id(stmt): number for number, stmt in enumerate(self.tree.body)}

    # -- positions -----------------------------------------------------------------------------------------

    def char_col(self, lineno: int, byte_col: int) -> int:
        """Code-point column for a 1-based document line and a UTF-8 byte column."""
        index = lineno - 1
        if not 0 <= index < len(self.lines):
            return byte_col
        line = self.lines[index]
        return byte_col if line.isascii() else byte_col_to_char(line, byte_col)

    def start_of(self, node: ast.AST) -> Position:
        chunk = self.chunk_of(node)
        if chunk is None:
            lineno: int = getattr(node, "lineno", 1)
            return Position(lineno - 1, self.char_col(lineno, getattr(node, "col_offset", 0)))
        line, character = chunk.start(node)
        return Position(line + self.offsets[id(chunk)], character)

    def end_of(self, node: ast.AST) -> Position:
        chunk = self.chunk_of(node)
        if chunk is None:
            end_line: int | None = getattr(node, "end_lineno", None)
            lineno: int = end_line if end_line is not None else getattr(node, "lineno", 1)
            end_col: int | None = getattr(node, "end_col_offset", None)
            col: int = end_col if end_col is not None else getattr(node, "col_offset", 0)
            return Position(lineno - 1, self.char_col(lineno, col))
        line, character = chunk.end(node)
        return Position(line + self.offsets[id(chunk)], character)

    def range_of(self, node: ast.AST) -> Range:
        chunk = self.chunk_of(node)  # once for both ends: every diagnostic asks
        if chunk is None:
            return Range(self.start_of(node), self.end_of(node))
        offset = self.offsets[id(chunk)]
        (line, character), (end_line, end_character) = chunk.start(node), chunk.end(node)
        return Range(Position(line + offset, character), Position(end_line + offset, end_character))

    def first_line_range(self, node: ast.AST) -> Range:
        """The node's range cut at the end of its first line (a compound statement's header)."""
        start = self.start_of(node)
        end = self.end_of(node)
        if end.line != start.line:
            line = self.lines[start.line] if start.line < len(self.lines) else ""
            end = Position(start.line, len(line.rstrip()))
        return Range(start, end)

    def file_range(self) -> Range:
        first = self.lines[0] if self.lines else ""
        return Range.of(0, 0, 0, len(first))

    def source_of(self, node: ast.AST) -> str:
        chunk = self.chunk_of(node)
        if chunk is not None:
            return chunk.source_of(node)
        start, end = self.start_of(node), self.end_of(node)
        if start.line == end.line:
            return self.lines[start.line][start.character : end.character]
        parts = [self.lines[start.line][start.character :]]
        parts.extend(self.lines[start.line + 1 : end.line])
        parts.append(self.lines[end.line][: end.character])
        return "\n".join(parts)

    def indent_of(self, stmt: ast.stmt) -> str | None:
        """The statement's indentation, or None when it does not start its line (`if x: stmt`)."""
        chunk = self.chunk_of(stmt)
        lines = chunk.lines if chunk is not None else self.lines
        line = lines[stmt.lineno - 1]
        stripped = len(line) - len(line.lstrip(" \t"))
        character = chunk.start(stmt)[1] if chunk is not None else self.start_of(stmt).character
        if character != stripped:
            return None
        return line[:stripped]

    # -- the tree around a node ----------------------------------------------------------------------------

    def enclosing(self, node: ast.AST, *types: type[ast.AST]) -> ast.AST | None:
        current = self.parents.get(node)
        while current is not None and not isinstance(current, types):
            current = self.parents.get(current)
        return current

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = self.parents.get(current)
        return current

    # -- edits ---------------------------------------------------------------------------------------------

    def import_insert_line(self, before: ast.AST | None = None) -> int:
        """Zero-based line after the module's top-level imports (only those above the top-level statement
        holding `before`, when given): where an inserted import goes, and a module-level seed after it."""
        ends = self._import_ends
        limit = len(self.tree.body)
        if before is not None:
            limit = self._top_index(before, limit)
        at = bisect.bisect_left(ends, (limit, -1))
        return ends[at - 1][1] if at else 0

    def _top_index(self, node: ast.AST, default: int) -> int:
        """The module-body index of the top-level statement holding `node`, through its chunk's own parent
        links when it has one (every EV009 fix asks, on every lint)."""
        chunk = self.chunk_of(node)
        base = self.top_order.get(id(chunk.body[0])) if chunk is not None else None
        if chunk is None or base is None:
            top = node
            while (parent := self.parents.get(top)) is not None and parent is not self.tree:
                top = parent
            return self.top_order.get(id(top), default)
        if len(chunk.body) == 1:
            return base  # the chunk's every node is under its one statement
        parents, current = chunk.parents, node
        while (parent := parents.get(current)) is not None:
            current = parent
        local = chunk.top_index.get(id(current))
        return default if local is None else base + local

    @cached_property
    def _import_ends(self) -> list[tuple[int, int]]:
        """(module-body index, the line after it) of each top-level docstring or import statement, from each
        chunk's own list: every fix that adds an import asks where, so this is worked out once per lint."""
        ends: list[tuple[int, int]] = []
        top_order = self.top_order
        for placed in [p for p in self.placed if p.chunk.import_ends]:
            chunk = placed.chunk
            index = top_order[id(chunk.body[0])]
            for local, after in chunk.import_ends:  # a docstring counts only as the module's first statement
                if local or index == 0 or not isinstance(chunk.body[local], ast.Expr):
                    ends.append((index + local, after + placed.line))
        return ends

    def insert_lines(self, line: int, text: str) -> TextEdit:
        """An edit inserting whole lines before zero-based `line` (at the end when past the last line)."""
        if line >= len(self.lines):
            last = len(self.lines) - 1
            end = Position(last, len(self.lines[last]))
            prefix = "" if self.lines[last] == "" else "\n"
            return TextEdit(self.relpath, Range(end, end), prefix + text)
        pos = Position(line, 0)
        return TextEdit(self.relpath, Range(pos, pos), text)


class ChunkText(SourceText):
    """One chunk of `root`: its own lines and positions relative to the chunk; other chunks' nodes are
    reached only to resolve names (`chunk_of`), never placed."""

    def __init__(self, root: SourceText, chunk: Chunk, reader: Reader) -> None:
        parents = _ChunkParents(chunk, root, reader)
        super().__init__(root.relpath, root.text, [Placed(chunk, 0)], root.tree, parents, chunk.kids)
        self.chunk = chunk
        self._root = root

    @cached_property
    def lines(self) -> Sequence[str]:
        return self.chunk.lines

    def chunk_of(self, node: ast.AST) -> Chunk | None:
        if id(node) in self.chunk.ids:
            return self.chunk
        return self._root.chunk_of(node)

    def start_of(self, node: ast.AST) -> Position:
        if id(node) not in self.chunk.ids:
            raise ForeignNodeError(f"{type(node).__name__} is not in this chunk")
        line, character = self.chunk.start(node)
        return Position(line, character)

    def end_of(self, node: ast.AST) -> Position:
        if id(node) not in self.chunk.ids:
            raise ForeignNodeError(f"{type(node).__name__} is not in this chunk")
        line, character = self.chunk.end(node)
        return Position(line, character)

    def range_of(self, node: ast.AST) -> Range:
        return Range(self.start_of(node), self.end_of(node))

    def file_range(self) -> Range:
        raise ForeignNodeError("per-chunk rules cannot report on the whole file")

    def import_insert_line(self, before: ast.AST | None = None) -> int:
        raise ForeignNodeError("per-chunk rules cannot place whole-file edits")

    def enclosing(self, node: ast.AST, *types: type[ast.AST]) -> ast.AST | None:
        """As for the document, but a walk that stays inside the chunk records nothing: only a walk that
        can stop at the module (the parent of every top-level statement) depends on the module's body."""
        if id(node) not in self.chunk.ids or any(issubclass(ast.Module, t) for t in types):
            return super().enclosing(node, *types)
        parents = self.chunk.parents
        current = parents.get(node)
        while current is not None and not isinstance(current, types):
            current = parents.get(current)
        return current


class _ChunkParents(Mapping[ast.AST, ast.AST]):
    """Parents inside the chunk; the module and other chunks' nodes through the document (recorded)."""

    def __init__(self, chunk: Chunk, root: SourceText, reader: Reader) -> None:
        self._chunk = chunk
        self._root = root
        self._reader = reader

    def get(self, node: ast.AST, default: ast.AST | None = None) -> ast.AST | None:  # type: ignore[override]
        parent = self._chunk.parents.get(node)
        if parent is not None:
            return parent
        root = self._root
        found = root.parents.get(node)
        if found is root.tree:
            self._reader.read(Lookup("module"))
        return found if found is not None else default

    def __getitem__(self, node: ast.AST) -> ast.AST:
        parent = self.get(node)
        if parent is None:
            raise KeyError(node)
        return parent

    def __iter__(self) -> Iterator[ast.AST]:
        return iter(self._chunk.parents)

    def __len__(self) -> int:
        return len(self._chunk.parents)
