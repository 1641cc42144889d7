"""Whole-document tables read through the document's chunks: its lines, per-name merges of the chunks' own
indexes, and parent and child links across chunks (a top-level statement's parent is the module)."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol, TypeVar, overload

from core.rules.evaluator.analysis.chunks import Chunk, Placed
from core.rules.evaluator.analysis.cutter import OWNER, claim

__all__ = ["DocumentLines", "Kids", "Merged", "Parents", "Placement"]

V = TypeVar("V")


class Placement(Protocol):
    """Where a document's chunks sit (the evaluator context is one)."""

    @property
    def placed(self) -> Sequence[Placed]: ...

    @property
    def offsets(self) -> Mapping[int, int]: ...

    @property
    def tree(self) -> ast.Module: ...

    def chunk_of(self, node: ast.AST) -> Chunk | None: ...


class DocumentLines(Sequence[str]):
    """The document's lines read from its chunks' own lines: splitting the whole text again on every lint
    would cost more than the rest of an incremental lint's bookkeeping."""

    def __init__(self, placed: Sequence[Placed]) -> None:
        self._starts = [p.line for p in placed]
        self._chunks = [p.chunk for p in placed]
        last = placed[-1]
        self._len = last.line + len(last.chunk.lines)

    def __len__(self) -> int:
        return self._len

    def _line(self, index: int) -> str:
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError(index)
        at = bisect.bisect_right(self._starts, index) - 1
        return self._chunks[at].lines[index - self._starts[at]]

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self._line(i) for i in range(*index.indices(self._len))]
        return self._line(index)

    def __iter__(self) -> Iterator[str]:
        for i in range(self._len):
            yield self._line(i)


class Merged(Mapping[str, Sequence[V]]):
    """name -> every chunk's entries for that name, in document order (built per name on first use)."""

    def __init__(
        self, parts: Sequence[Mapping[str, Sequence[V]]], memo: dict[str, Sequence[V] | None] | None = None
    ) -> None:
        self._parts = parts
        self._memo: dict[str, Sequence[V] | None] = {} if memo is None else memo

    def carried(self, parts: Sequence[Mapping[str, Sequence[V]]], touched: set[str]) -> Merged[V]:
        """The merge of `parts`, which differ from this merge's parts only in chunks whose every key is in
        `touched`: the names merged here already keep their answer, the edited chunks' names are merged
        again."""
        memo = self._memo.copy()
        for key in touched:
            memo.pop(key, None)
        return Merged(parts, memo)

    def _lookup(self, key: str) -> Sequence[V] | None:
        if key in self._memo:
            return self._memo[key]
        found: list[V] = []
        hits = 0
        single: Sequence[V] | None = None
        for part in self._parts:
            values = part.get(key)
            if values is not None:
                hits += 1
                single = values
                found.extend(values)
        result: Sequence[V] | None = None if not hits else (single if hits == 1 else found)
        self._memo[key] = result
        return result

    def __getitem__(self, key: str) -> Sequence[V]:
        found = self._lookup(key)
        if found is None:
            raise KeyError(key)
        return found

    def get(self, key: str, default: Sequence[V] | None = None) -> Sequence[V] | None:  # type: ignore[override]
        found = self._lookup(key)
        return default if found is None else found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._lookup(key) is not None

    def __iter__(self) -> Iterator[str]:
        seen: dict[str, None] = {}
        for part in self._parts:
            seen.update(dict.fromkeys(part))
        return iter(seen)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Parents(Mapping[ast.AST, ast.AST]):
    """Parent links across chunks: a top-level statement's parent is the document's module."""

    def __init__(self, ctx: Placement) -> None:
        self._ctx = ctx

    def get(self, node: ast.AST, default: ast.AST | None = None) -> ast.AST | None:  # type: ignore[override]
        chunk = self._ctx.chunk_of(node)
        if chunk is None:
            return default
        parent = chunk.parents.get(node)
        if parent is not None:
            return parent
        if id(node) in chunk.top_level:
            return self._ctx.tree
        return default

    def __getitem__(self, node: ast.AST) -> ast.AST:
        parent = self.get(node)
        if parent is None:
            raise KeyError(node)
        return parent

    def __iter__(self) -> Iterator[ast.AST]:
        for placed in self._ctx.placed:
            yield from placed.chunk.parents
            yield from placed.chunk.body

    def __len__(self) -> int:
        return sum(len(p.chunk.parents) + len(p.chunk.body) for p in self._ctx.placed)


class Kids(Mapping[int, list[ast.AST]]):
    def __init__(self, ctx: Placement) -> None:
        self._ctx = ctx

    def get(self, key: int, default: list[ast.AST] | None = None) -> list[ast.AST] | None:  # type: ignore[override]
        chunk = OWNER.get(key)
        if chunk is None or id(chunk) not in self._ctx.offsets:
            for placed in self._ctx.placed:
                if key in placed.chunk.ids:
                    claim(placed.chunk)
                    return placed.chunk.kids.get(key, default)
            return default
        return chunk.kids.get(key, default)

    def __getitem__(self, key: int) -> list[ast.AST]:
        kids = self.get(key)
        if kids is None:
            raise KeyError(key)
        return kids

    def __iter__(self) -> Iterator[int]:
        for placed in self._ctx.placed:
            yield from placed.chunk.kids

    def __len__(self) -> int:
        return sum(len(p.chunk.kids) for p in self._ctx.placed)
