"""The answers to whole-file lookups: what a chunk view asked, answered by the document and asked again
to tell whether a cached per-chunk result still holds.

`DocumentStore` answers each `Lookup` kind from the document's tables (memoized per lint), including the
module-scope questions name resolution asks and facts registered by rules; it also holds the per-chunk
results once the chunk passes ran. `RecordingStore` is a view's: it asks the document and records every
answer it used.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Protocol, TypeVar

from core.rules.evaluator.analysis.chunk_results import ChunkResult
from core.rules.evaluator.analysis.chunks import MODULE_SCOPE_KINDS
from core.rules.evaluator.analysis.node_lists import Nodes
from core.rules.evaluator.analysis.recorded import FACT, TABLE, Lookup
from core.rules.evaluator.analysis.scopes import Binding
from core.rules.evaluator.analysis.source_text import SourceText
from core.rules.evaluator.analysis.tables import WholeFileTables

__all__ = ["DocumentStore", "RecordingStore", "Store"]

V = TypeVar("V")
_UNKNOWN = object()
CallHit = tuple[int, int, ast.Call]  # (chunk number, call number in the chunk, call)


class Store(Protocol):
    """Where a context's whole-file lookups are answered."""

    chunk_results: list[ChunkResult] | None

    def answer(self, lookup: Lookup) -> object: ...

    def read(self, lookup: Lookup) -> object: ...

    def fact(self, name: str, key: str) -> object: ...

    def facts(self, name: str) -> list[object] | None: ...

    def reads_hold(self, reads: Mapping[Lookup, object]) -> bool: ...

    def calls_named(self, qualname: str) -> list[CallHit]: ...


class DocumentStore:
    """The document's answers, memoized per lint (a lint builds a new store)."""

    def __init__(
        self,
        source: SourceText,
        tables: WholeFileTables,
        nodes: Nodes,
        exists: Callable[[str], bool],
        compute_fact: Callable[[str, str], object],
    ) -> None:
        self.source = source
        self.tables = tables
        self.nodes = nodes
        self.exists = exists
        self._compute_fact = compute_fact
        self.chunk_results: list[ChunkResult] | None = None
        self._answers: dict[Lookup, object] = {}
        self._calls_by_name: dict[str, list[CallHit]] = {}
        self._with_facts: tuple[list[ChunkResult], list[ChunkResult]] | None = None
        self._called: tuple[list[ChunkResult], set[str]] | None = None

    def answer(self, lookup: Lookup) -> object:
        """The document's answer to one whole-file question (memoized per lint)."""
        if lookup in self._answers:
            return self._answers[lookup]
        value: object
        kind = lookup.kind
        answer = _ANSWERS.get(kind)
        if answer is not None:
            value = answer(self, lookup.key)
        elif kind in MODULE_SCOPE_KINDS:
            value = self._module_answer(lookup)
        elif kind == FACT:
            value = self.fact(lookup.detail, lookup.key)
        elif kind == TABLE:
            mapping: Mapping[str, object] = getattr(self.tables, lookup.detail)
            value = tuple((k, _tuple(v) if isinstance(v, list) else v) for k, v in mapping.items())
        else:
            raise KeyError(kind)
        self._answers[lookup] = value
        return value

    def read(self, lookup: Lookup) -> object:
        """A whole-file lookup (views record it; the document answers it directly)."""
        return self.answer(lookup)

    def fact(self, name: str, key: str) -> object:
        """A registered whole-file fact, memoized per lint."""
        memo_key = Lookup(FACT, key, name)
        if memo_key in self._answers:
            return self._answers[memo_key]
        value = self._compute_fact(name, key)
        self._answers[memo_key] = value
        return value

    def facts(self, name: str) -> list[object] | None:
        """The per-chunk facts `name` of every chunk, in order; None when the chunk passes have not run."""
        results = self.chunk_results
        if results is None:
            return None
        found = self._with_facts
        if found is None or found[0] is not results:
            # Most chunks have no facts of any kind: the rules ask for several kinds on every lint.
            found = self._with_facts = (results, [r for r in results if any(r.facts.values())])
        return [item for result in found[1] for item in result.facts.get(name, ())]

    def reads_hold(self, reads: Mapping[Lookup, object]) -> bool:
        """Every recorded lookup still gives the recorded answer in this document."""
        answers = self._answers
        for read, value in reads.items():
            known = answers.get(read, _UNKNOWN)
            if known is _UNKNOWN:
                known = self.answer(read)
            if known != value:
                return False
        return True

    def calls_named(self, qualname: str) -> list[CallHit]:
        """Every call to `qualname` the chunk passes found, in document order (memoized per lint)."""
        found = self._calls_by_name.get(qualname)
        if found is None:
            found = []
            if qualname not in self._called_names():
                self._calls_by_name[qualname] = found
                return found
            for number, result in enumerate(self.chunk_results or ()):
                hits = result.calls_by_name.get(qualname)
                if hits:
                    found.extend((number, index, call) for index, call in hits)
            self._calls_by_name[qualname] = found
        return found

    def _called_names(self) -> set[str]:
        """Every name the chunk passes found called (the rules ask about names most evaluators never call:
        one set answers those without looking at every chunk)."""
        results = self.chunk_results or []
        known = self._called
        if known is None or known[0] is not results:
            known = self._called = (results, set().union(*(r.calls_by_name for r in results)))
        return known[1]

    @cached_property
    def _module_scope(self) -> tuple[dict[str, list[tuple[int, Binding]]], dict[str, list[Binding]]]:
        """(name -> its module-scope bindings with their top-level statement's index, in document order;
        name -> bindings in functions that declare it `global`)."""
        order = self.source.top_order
        module: dict[str, list[tuple[int, Binding]]] = {}
        declared: dict[str, list[Binding]] = {}
        for placed in self.source.placed:
            index = placed.chunk.scope_index
            for name, found in index.module_bindings.items():
                module.setdefault(name, []).extend((order.get(id(b.top), -1), b) for b in found)
            for name, found in index.global_bindings.items():
                declared.setdefault(name, []).extend(found)
        return module, declared

    def _module_answer(self, lookup: Lookup) -> object:
        kind, name = lookup.kind, lookup.key
        module, declared = self._module_scope
        found = module.get(name, [])
        if kind == "module_all":
            return tuple(b for _, b in found) + tuple(declared.get(name, ()))
        if kind == "module_last":
            return found[-1][1] if found and name not in declared else None
        limit = self.source.top_order.get(lookup.asker, -1)
        before = [b for number, b in found if number < limit]
        if kind == "module_before":
            return before[-1] if before else None
        # module_reaching: from the last binding that is a whole top-level statement (it always runs) on.
        start = 0
        for at, binding in enumerate(before):
            if binding.stmt is binding.top:
                start = at
        return tuple(before[start:])


class RecordingStore:
    """A view's store: every lookup is answered by the document and recorded with its answer in `reads`."""

    chunk_results: list[ChunkResult] | None = None  # a view runs no chunk passes of its own

    def __init__(self, root: Store) -> None:
        self._root = root
        self.reads: dict[Lookup, object] = {}

    def answer(self, lookup: Lookup) -> object:
        return self._root.answer(lookup)

    def read(self, lookup: Lookup) -> object:
        value = self._root.answer(lookup)
        self.reads[lookup] = value
        return value

    def fact(self, name: str, key: str) -> object:
        return self.read(Lookup(FACT, key, name))

    def facts(self, name: str) -> list[object] | None:
        return None

    def reads_hold(self, reads: Mapping[Lookup, object]) -> bool:
        return self._root.reads_hold(reads)

    def calls_named(self, qualname: str) -> list[CallHit]:
        return []


def _tuple(values: Sequence[V] | None) -> tuple[V, ...] | None:
    return None if values is None else tuple(values)


_Answer = Callable[[DocumentStore, str], object]
_ANSWERS: dict[str, _Answer] = {
    "alias": lambda store, key: store.tables.aliases.get(key),
    "top_alias": lambda store, key: store.tables.top_aliases.get(key),
    "bound": lambda store, key: key in store.tables.bound_names,
    "assigned": lambda store, key: _tuple(store.tables.assigned.get(key)),
    "function": lambda store, key: store.tables.functions.get(key),
    "class": lambda store, key: store.tables.classes.get(key),
    "methods": lambda store, key: _tuple(store.tables.methods.get(key)),
    "name_loads": lambda store, key: _tuple(store.tables.name_loads.get(key)),
    "attribute_loads": lambda store, key: _tuple(store.tables.attribute_loads.get(key)),
    "module": lambda store, _key: tuple(store.source.tree.body),
    "flow_body": lambda store, _key: tuple(store.nodes.flow_body()),
    "key_adders": lambda store, key: tuple(store.tables.key_adders(key)),
    "strings": lambda store, key: tuple(store.tables.string_nodes(key)),
    "fast_parameter": lambda store, _key: store.tables.has_fast_parameter(),
    "exists": lambda store, key: store.exists(key),
}
"""How the document answers each kind of recorded lookup for a key; the module-scope kinds, registered facts
(`FACT`) and whole tables (`TABLE`) are answered in `DocumentStore.answer`."""
