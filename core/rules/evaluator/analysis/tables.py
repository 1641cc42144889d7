"""The tables the rules read: whole-file facts merged from the chunks' own indexes, and the nodes of the
chunks a context covers.

The whole-file facts (aliases, bound names, assignments, functions...) are merged on every lint, which is
cheap: each chunk built its maps by assigning in order, so `update` in document order keeps the order and
the winner of one whole-file pass. A chunk view reads the same facts through recorded lookups
(`recorded.RecordedTables`); `WholeFile` is what both offer.
"""

from __future__ import annotations

import ast
from collections.abc import Container, Mapping, Sequence
from functools import cached_property
from typing import Protocol

from core.rules.evaluator.analysis.chunks import Chunk, Placed
from core.rules.evaluator.analysis.document import Merged

__all__ = ["ChunkNodes", "DocumentNodes", "FunctionNode", "Nodes", "WholeFile", "WholeFileTables"]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


class WholeFile(Protocol):
    """Whole-file facts, as the document has them or as a view records its reads of them."""

    @property
    def bound_names(self) -> Container[str]: ...

    @property
    def assigned(self) -> Mapping[str, Sequence[ast.expr]]: ...

    @property
    def functions(self) -> Mapping[str, FunctionNode]: ...

    @property
    def classes(self) -> Mapping[str, ast.ClassDef]: ...

    @property
    def methods(self) -> Mapping[str, Sequence[FunctionNode]]: ...

    @property
    def aliases(self) -> Mapping[str, str]: ...

    @property
    def top_aliases(self) -> Mapping[str, str]: ...

    @property
    def name_loads(self) -> Mapping[str, Sequence[ast.Name]]: ...

    @property
    def attribute_loads(self) -> Mapping[str, Sequence[ast.Attribute]]: ...

    def string_nodes(self, value: str) -> Sequence[ast.Constant]: ...

    def key_adders(self, name: str) -> Sequence[ast.AST]: ...

    def has_fast_parameter(self) -> bool: ...


class WholeFileTables:
    """The document's whole-file facts, merged from its chunks."""

    def __init__(self, placed: Sequence[Placed]) -> None:
        self._placed = placed
        chunks = [p.chunk for p in placed]
        bound: set[str] = set()
        assigned: dict[str, list[ast.expr]] = {}
        copied: set[str] = set()  # names whose list is ours (several chunks assign them), not a chunk's
        functions: dict[str, FunctionNode] = {}
        classes: dict[str, ast.ClassDef] = {}
        aliases: dict[str, str] = {}
        top_aliases: dict[str, str] = {}
        for chunk in chunks:
            bound |= chunk.bound_names
            for name, values in chunk.assigned.items():
                known = assigned.get(name)
                if known is None:
                    assigned[name] = values
                elif name in copied:
                    known.extend(values)
                else:
                    assigned[name] = [*known, *values]
                    copied.add(name)
            functions.update(chunk.function_map)
            classes.update(chunk.class_map)
            chunk_aliases, chunk_top_aliases = chunk.alias_maps
            aliases.update(chunk_aliases)
            top_aliases.update(chunk_top_aliases)
        methods: dict[str, list[FunctionNode]] = {}
        for cls in classes.values():
            for item in cls.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    methods.setdefault(item.name, []).append(item)
        self.bound_names: Container[str] = bound
        self.assigned: Mapping[str, Sequence[ast.expr]] = assigned
        self.functions: Mapping[str, FunctionNode] = functions
        self.classes: Mapping[str, ast.ClassDef] = classes
        self.methods: Mapping[str, Sequence[FunctionNode]] = methods
        self.aliases: Mapping[str, str] = aliases
        self.top_aliases: Mapping[str, str] = top_aliases
        self.name_loads: Mapping[str, Sequence[ast.Name]] = Merged([c.name_loads for c in chunks])
        self.attribute_loads: Mapping[str, Sequence[ast.Attribute]] = Merged(
            [c.attribute_loads for c in chunks]
        )
        self._strings_by_value: Mapping[str, Sequence[ast.Constant]] = Merged(
            [c.strings_by_value for c in chunks]
        )
        self._key_adders: Mapping[str, Sequence[ast.AST]] = Merged([c.key_adders for c in chunks])

    def string_nodes(self, value: str) -> Sequence[ast.Constant]:
        """Every string constant equal to `value`."""
        return self._strings_by_value.get(value, ())

    def key_adders(self, name: str) -> Sequence[ast.AST]:
        """`name[...] = ...` assignments and `name.update(...)`/`name.setdefault(...)` calls, in order."""
        return self._key_adders.get(name, ())

    def has_fast_parameter(self) -> bool:
        return any(p.chunk.fast_parameter for p in self._placed)


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


def _method_calls(chunk: Chunk, attrs: tuple[str, ...]) -> list[ast.Call]:
    found = [c for attr in attrs for c in chunk.method_calls.get(attr, ())]
    if len(attrs) > 1:
        found.sort(key=lambda c: chunk.call_index[id(c)])
    return found
