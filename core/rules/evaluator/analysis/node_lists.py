"""The nodes a rule iterates: every chunk's of a document (`DocumentNodes`), or one chunk's own
(`ChunkNodes`); `Nodes` is what both offer. Lists are each chunk's own index, joined in document order."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

from core.rules.evaluator.analysis.chunks import Chunk, Placed

__all__ = ["ChunkNodes", "DocumentNodes", "Nodes", "nodes_by_type"]


class Nodes(Protocol):
    """The nodes of the chunks a context covers, each list in document order."""

    @property
    def calls(self) -> list[ast.Call]: ...

    @property
    def nodes(self) -> list[ast.AST]: ...

    @property
    def imports(self) -> list[ast.Import | ast.ImportFrom]: ...

    @property
    def handlers(self) -> list[ast.ExceptHandler]: ...

    @property
    def strings(self) -> list[ast.Constant]: ...

    def flow_body(self) -> Sequence[ast.stmt]: ...

    def method_calls(self, *attrs: str) -> list[ast.Call]: ...

    def star_kwarg_calls(self) -> list[ast.Call]: ...

    def nodes_of(self, *kinds: type[ast.AST]) -> list[ast.AST]: ...

    def position(self, node: ast.AST) -> int: ...


class DocumentNodes:
    """Every chunk's nodes, joined on first use; `nodes` starts with the module."""

    def __init__(self, placed: Sequence[Placed], tree: ast.Module) -> None:
        self._placed = placed
        self._tree = tree

    @cached_property
    def calls(self) -> list[ast.Call]:
        return [call for p in self._placed for call in p.chunk.calls]

    @cached_property
    def nodes(self) -> list[ast.AST]:
        """Every node, pre-order, the module first: rules scan this instead of re-walking."""
        out: list[ast.AST] = [self._tree]
        for p in self._placed:
            out.extend(p.chunk.nodes)
        return out

    @cached_property
    def imports(self) -> list[ast.Import | ast.ImportFrom]:
        return [imp for p in self._placed for imp in p.chunk.imports]

    @cached_property
    def handlers(self) -> list[ast.ExceptHandler]:
        return [h for p in self._placed for h in p.chunk.handlers]

    @cached_property
    def strings(self) -> list[ast.Constant]:
        return [s for p in self._placed for s in p.chunk.strings]

    def flow_body(self) -> Sequence[ast.stmt]:
        """The module's statements minus plain `def`s (see `Chunk.flow_body`)."""
        return [s for p in self._placed for s in p.chunk.flow_body]

    def method_calls(self, *attrs: str) -> list[ast.Call]:
        """Calls `x.attr(...)` for any of `attrs`, in document order (a syntactic pre-filter)."""
        out: list[ast.Call] = []
        for p in self._placed:
            out.extend(_method_calls(p.chunk, attrs))
        return out

    def star_kwarg_calls(self) -> list[ast.Call]:
        return [c for p in self._placed for c in p.chunk.star_kwarg_calls]

    def nodes_of(self, *kinds: type[ast.AST]) -> list[ast.AST]:
        """The nodes of exactly these types (`type(node) in kinds`): grouped by kind in the order given,
        each group in document order (`position` puts what a rule found back in pre-order)."""
        found: list[ast.AST] = []
        for kind in kinds:
            if kind is ast.Module:
                found.append(self._tree)  # `nodes` starts with the module, no chunk holds it
            found.extend(node for p in self._placed for node in nodes_by_type(p.chunk).get(kind, ()))
        return found

    def position(self, node: ast.AST) -> int:
        """The node's index in `nodes` (pre-order)."""
        return self._positions[id(node)]

    @cached_property
    def _positions(self) -> dict[int, int]:
        return {id(node): number for number, node in enumerate(self.nodes)}


class ChunkNodes:
    """One chunk's own node lists (not copies: a chunk view is built for every changed chunk); no module."""

    def __init__(self, chunk: Chunk) -> None:
        self._chunk = chunk
        self.calls = chunk.calls
        self.nodes = chunk.nodes
        self.imports = chunk.imports
        self.handlers = chunk.handlers
        self.strings = chunk.strings

    def flow_body(self) -> Sequence[ast.stmt]:
        return list(self._chunk.flow_body)

    def method_calls(self, *attrs: str) -> list[ast.Call]:
        return _method_calls(self._chunk, attrs)

    def star_kwarg_calls(self) -> list[ast.Call]:
        return list(self._chunk.star_kwarg_calls)

    def nodes_of(self, *kinds: type[ast.AST]) -> list[ast.AST]:
        """The nodes of exactly these types (`type(node) in kinds`): grouped by kind in the order given,
        each group in pre-order (`position` puts what a rule found back in pre-order). For one kind this is
        the chunk's own list: read it, never change it."""
        by_type = self._chunk.by_type
        if by_type is None:
            by_type = nodes_by_type(self._chunk)
        if len(kinds) == 1:
            return by_type.get(kinds[0], [])
        return [node for kind in kinds for node in by_type.get(kind, ())]

    def position(self, node: ast.AST) -> int:
        """The node's index in `nodes` (pre-order)."""
        return self._positions[id(node)]

    @cached_property
    def _positions(self) -> dict[int, int]:
        return {id(node): number for number, node in enumerate(self.nodes)}


def nodes_by_type(chunk: Chunk) -> dict[type[ast.AST], list[ast.AST]]:
    """The chunk's nodes by type, each list in pre-order (`Chunk.by_type`, built on first use)."""
    found = chunk.by_type
    if found is None:
        found = {}
        for node in chunk.nodes:
            kind = type(node)
            same = found.get(kind)
            if same is None:
                found[kind] = [node]
            else:
                same.append(node)
        chunk.by_type = found
    return found


def _method_calls(chunk: Chunk, attrs: tuple[str, ...]) -> list[ast.Call]:
    found = [c for attr in attrs for c in chunk.method_calls.get(attr, ())]
    if len(attrs) > 1:
        found.sort(key=lambda c: chunk.call_index[id(c)])
    return found
