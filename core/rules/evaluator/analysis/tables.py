"""The tables the rules read: whole-file facts merged from the chunks' own indexes (the nodes of the chunks
a context covers are `node_lists`').

The whole-file facts (aliases, bound names, assignments, functions...) are merged on every lint, which is
cheap: each chunk built its maps by assigning in order, so `update` in document order keeps the order and
the winner of one whole-file pass. A chunk view reads the same facts through recorded lookups
(`recorded.RecordedTables`); `WholeFile` is what both offer.
"""

from __future__ import annotations

import ast
import threading
from collections import OrderedDict
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Protocol, TypeVar

from core.rules.evaluator.analysis.chunks import Chunk, Placed
from core.rules.evaluator.analysis.document import Merged

__all__ = ["FunctionNode", "WholeFile", "WholeFileTables", "clear_tables", "tables_after"]

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
    """The document's whole-file facts, merged from its chunks.

    With `previous` (the tables of an earlier lint, any document), a lint whose chunks are `previous`'s
    with one short run replaced starts from `previous`'s tables and merges again only the names the
    replaced and replacing chunks take part in (`_Edit`): always in the per-name merges (`Merged`), and
    in the other tables when that gives the same tables, key order included; otherwise those merge every
    chunk.
    """

    def __init__(self, placed: Sequence[Placed], previous: WholeFileTables | None = None) -> None:
        self._placed = placed
        chunks = [p.chunk for p in placed]
        self._chunks = chunks
        edit = _Edit.between(previous._chunks, chunks) if previous is not None else None
        if previous is None or edit is None:
            self._merge(chunks)
            self.name_loads: Merged[ast.Name] = Merged([c.name_loads for c in chunks])
            self.attribute_loads: Merged[ast.Attribute] = Merged([c.attribute_loads for c in chunks])
            self._strings_by_value: Merged[ast.Constant] = Merged([c.strings_by_value for c in chunks])
            self._key_adders: Merged[ast.AST] = Merged([c.key_adders for c in chunks])
            return
        if not edit.removed and not edit.added:  # the same chunks: the same tables
            self.__dict__.update(
                {k: v for k, v in previous.__dict__.items() if k not in ("_placed", "_chunks")}
            )
            return
        if not self._follow(previous, edit):
            self._merge(chunks)
        self.name_loads = previous.name_loads.carried(
            [c.name_loads for c in chunks], edit.keys(lambda c: c.name_loads)
        )
        self.attribute_loads = previous.attribute_loads.carried(
            [c.attribute_loads for c in chunks], edit.keys(lambda c: c.attribute_loads)
        )
        self._strings_by_value = previous._strings_by_value.carried(
            [c.strings_by_value for c in chunks], edit.keys(lambda c: c.strings_by_value)
        )
        self._key_adders = previous._key_adders.carried(
            [c.key_adders for c in chunks], edit.keys(lambda c: c.key_adders)
        )

    def _merge(self, chunks: Sequence[Chunk]) -> None:
        """Every chunk's tables merged in document order (the last definition of a name wins)."""
        assigned: dict[str, list[ast.expr]] = {}
        copied: set[str] = set()  # names whose list is ours (several chunks assign them), not a chunk's
        for chunk in chunks:
            for name, values in chunk.assigned.items():
                known = assigned.get(name)
                if known is None:
                    assigned[name] = values
                elif name in copied:
                    known.extend(values)
                else:
                    assigned[name] = [*known, *values]
                    copied.add(name)
        alias_maps = [chunk.alias_maps for chunk in chunks]
        classes = _last_wins([chunk.class_map for chunk in chunks])
        self.bound_names: Container[str] = set().union(*[chunk.bound_names for chunk in chunks])
        self.assigned: Mapping[str, Sequence[ast.expr]] = assigned
        self.functions: Mapping[str, FunctionNode] = _last_wins([chunk.function_map for chunk in chunks])
        self.classes: Mapping[str, ast.ClassDef] = classes
        self.methods: Mapping[str, Sequence[FunctionNode]] = _methods(classes)
        self.aliases: Mapping[str, str] = _last_wins([maps[0] for maps in alias_maps])
        self.top_aliases: Mapping[str, str] = _last_wins([maps[1] for maps in alias_maps])

    def _follow(self, previous: WholeFileTables, edit: _Edit) -> bool:
        """`previous`'s tables with the edited names merged again; False when a name would move in one (the
        edited chunks name other names, or in another order): one pass over every chunk then merges all."""
        functions = edit.winners(previous.functions, _functions)
        if functions is None:
            return False  # a pasted or removed function: the commonest reason, asked first
        classes = edit.winners(previous.classes, _classes)
        aliases = edit.winners(previous.aliases, _aliases)
        top_aliases = edit.winners(previous.top_aliases, _top_aliases)
        assigned = edit.concatenations(previous.assigned, _assigned)
        if classes is None or aliases is None or top_aliases is None or assigned is None:
            return False
        self.functions = functions
        self.classes = classes
        self.aliases = aliases
        self.top_aliases = top_aliases
        self.assigned = assigned
        self.bound_names = edit.union(previous.bound_names, lambda c: c.bound_names)
        self.methods = previous.methods if classes is previous.classes else _methods(classes)
        return True

    def _same_as(self, previous: WholeFileTables) -> None:
        """The same chunks as `previous`'s, in the same order: the same tables (none is changed once built;
        the per-name merges only fill in their answers)."""
        self.bound_names = previous.bound_names
        self.assigned = previous.assigned
        self.functions = previous.functions
        self.classes = previous.classes
        self.methods = previous.methods
        self.aliases = previous.aliases
        self.top_aliases = previous.top_aliases
        self.name_loads = previous.name_loads
        self.attribute_loads = previous.attribute_loads
        self._strings_by_value = previous._strings_by_value
        self._key_adders = previous._key_adders

    def string_nodes(self, value: str) -> Sequence[ast.Constant]:
        """Every string constant equal to `value`."""
        found = self._strings_by_value.get(value)
        return () if found is None else found

    def key_adders(self, name: str) -> Sequence[ast.AST]:
        """`name[...] = ...` assignments and `name.update(...)`/`name.setdefault(...)` calls, in order."""
        found = self._key_adders.get(name)
        return () if found is None else found

    def has_fast_parameter(self) -> bool:
        return any(p.chunk.fast_parameter for p in self._placed)


_LAST: OrderedDict[str, WholeFileTables] = OrderedDict()
_LAST_LOCK = threading.Lock()
MAX_DOCUMENTS = 32


def tables_after(relpath: str, placed: Sequence[Placed]) -> WholeFileTables:
    """The tables of `placed`, merged from the last lint of `relpath` when that is cheaper."""
    with _LAST_LOCK:
        previous = _LAST.get(relpath)
    tables = WholeFileTables(placed, previous)
    with _LAST_LOCK:
        _LAST[relpath] = tables
        _LAST.move_to_end(relpath)
        while len(_LAST) > MAX_DOCUMENTS:
            _LAST.popitem(last=False)
    return tables


def clear_tables() -> None:
    with _LAST_LOCK:
        _LAST.clear()


def _functions(chunk: Chunk) -> Mapping[str, FunctionNode]:
    return chunk.function_map


def _classes(chunk: Chunk) -> Mapping[str, ast.ClassDef]:
    return chunk.class_map


def _aliases(chunk: Chunk) -> Mapping[str, str]:
    return chunk.alias_maps[0]


def _top_aliases(chunk: Chunk) -> Mapping[str, str]:
    return chunk.alias_maps[1]


def _assigned(chunk: Chunk) -> Mapping[str, Sequence[ast.expr]]:
    return chunk.assigned


def _last_wins(tables: Sequence[Mapping[str, V]]) -> dict[str, V]:
    """The tables merged in order, a later table's entry winning (and each name where first seen)."""
    merged: dict[str, V] = {}
    for table in tables:
        if table:
            merged.update(table)
    return merged


def _methods(classes: Mapping[str, ast.ClassDef]) -> dict[str, list[FunctionNode]]:
    """Method name -> every class's methods of that name, classes in table order."""
    methods: dict[str, list[FunctionNode]] = {}
    for cls in classes.values():
        for item in cls.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                methods.setdefault(item.name, []).append(item)
    return methods


V = TypeVar("V")
_Part = Callable[[Chunk], Mapping[str, V]]
MAX_EDITED = 8  # chunks replaced or replacing: more, and a whole merge is as cheap


class _Edit:
    """How a document's chunks differ from an earlier lint's: the run `old[start:old_end]` became
    `new[start:new_end]`, every chunk before and after it the same object at the same index."""

    def __init__(
        self, old: Sequence[Chunk], new: Sequence[Chunk], start: int, old_end: int, new_end: int
    ) -> None:
        self.chunks = new
        self.removed = old[start:old_end]
        self.added = new[start:new_end]
        self.after = new[new_end:]

    @classmethod
    def between(cls, old: Sequence[Chunk], new: Sequence[Chunk]) -> _Edit | None:
        """The edit from `old` to `new`, or None when it replaced more than `MAX_EDITED` chunks."""
        limit = min(len(old), len(new))
        start = 0
        while start < limit and old[start] is new[start]:
            start += 1
        old_end, new_end = len(old), len(new)
        while old_end > start and new_end > start and old[old_end - 1] is new[new_end - 1]:
            old_end -= 1
            new_end -= 1
        if old_end - start + new_end - start > MAX_EDITED:
            return None
        return cls(old, new, start, old_end, new_end)

    def keys(self, part: _Part[object]) -> set[str]:
        """Every name the removed or added chunks have in their table `part`."""
        found: set[str] = set()
        for chunk in (*self.removed, *self.added):
            found.update(part(chunk))
        return found

    def _rebuilt(
        self, merged: Mapping[str, V], part: _Part[object], value_of: Callable[[str], V | None]
    ) -> Mapping[str, V] | None:
        """`merged` (the old chunks' table `part` merged per name, first seen first) for the new chunks,
        each name the edited run has merged again by `value_of` (None: no chunk has it). None when
        a name would change place: a run with other names, or in another order, and chunks after it."""
        before = list(dict.fromkeys(k for chunk in self.removed for k in part(chunk)))
        after = list(dict.fromkeys(k for chunk in self.added for k in part(chunk)))
        if before == after and not after:
            return merged
        if before != after and self.after:
            return None
        out = dict(merged)
        if before != after:
            # At the end of the document: a name no earlier chunk has goes after every other name.
            head = self.chunks[: len(self.chunks) - len(self.added)]
            for name in before:
                if not any(name in part(chunk) for chunk in head):
                    del out[name]
        for name in after:
            out[name] = value_of(name)  # type: ignore[assignment]  # an added chunk has it
        for name in before:
            if name not in after:
                value = value_of(name)
                if value is not None:
                    out[name] = value
        return out

    def winners(self, merged: Mapping[str, V], part: _Part[V]) -> Mapping[str, V] | None:
        """`merged` (the old chunks' `part` merged, the last definition winning) for the new chunks, the
        edited names merged again; None when a name would move."""

        def last(name: str) -> V | None:
            for chunk in reversed(self.chunks):
                table = part(chunk)
                if name in table:
                    return table[name]
            return None

        return self._rebuilt(merged, part, last)

    def concatenations(
        self, merged: Mapping[str, Sequence[V]], part: _Part[Sequence[V]]
    ) -> Mapping[str, Sequence[V]] | None:
        """`merged` (every old chunk's `part` lists joined per name) for the new chunks, the edited names
        joined again; None when a name would move."""

        def joined(name: str) -> Sequence[V] | None:
            lists = [found for chunk in self.chunks if (found := part(chunk).get(name)) is not None]
            if not lists:
                return None
            return lists[0] if len(lists) == 1 else [v for values in lists for v in values]

        return self._rebuilt(merged, part, joined)

    def union(self, merged: Container[str], part: Callable[[Chunk], set[str]]) -> Container[str]:
        """`merged` (the union of the old chunks' `part` sets) for the new chunks."""
        before = set().union(*(part(c) for c in self.removed))
        after = set().union(*(part(c) for c in self.added))
        if before == after:
            return merged
        return set().union(*(part(c) for c in self.chunks))
