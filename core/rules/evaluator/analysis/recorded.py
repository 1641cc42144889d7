"""Whole-file lookups as a view records them: one typed `Lookup` per question, and tables whose every read
goes through `Reader.read` (which records the answer), so a cached result knows what it depended on."""

from __future__ import annotations

import ast
from collections.abc import Container, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar

__all__ = ["FACT", "TABLE", "Lookup", "Reader", "Recorded", "RecordedNames", "RecordedTables"]

V = TypeVar("V")
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


FACT = "fact"  # a registered whole-file fact (`Lookup.detail` names it)
TABLE = "all"  # a whole table, every key with its value (`Lookup.detail` names the table)


class Lookup(NamedTuple):
    """One whole-file question: its `kind` (a table such as "alias" or "bound", a module-scope question,
    `FACT` or `TABLE`), the name it is about, which fact or table (`detail`), and for module-scope questions
    the top-level statement that asks (`asker`, its id; -1 for none)."""

    kind: str
    key: str = ""
    detail: str = ""
    asker: int = -1

    @property
    def subject(self) -> tuple[str, str]:
        """(kind, name): what an edit's added or removed chunk can change the answer of."""
        return self.kind, self.key


class Reader(Protocol):
    def read(self, lookup: Lookup) -> object: ...


class Recorded(Mapping[str, V]):
    """A whole-file mapping as a chunk view sees it: every lookup is recorded with its answer."""

    def __init__(self, view: Reader, kind: str, attribute: str) -> None:
        self._view = view
        self._kind = kind
        self._attribute = attribute

    def __getitem__(self, key: str) -> V:
        value = self._view.read(Lookup(self._kind, key))
        if value is None or value is False:
            raise KeyError(key)
        return value  # type: ignore[return-value]

    def get(self, key: str, default: V | None = None) -> V | None:  # type: ignore[override]
        value = self._view.read(Lookup(self._kind, key))
        if value is None or value is False:
            return default
        return value  # type: ignore[return-value]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._view.read(Lookup(self._kind, key)) is not None

    def __iter__(self) -> Iterator[str]:
        items = self._view.read(Lookup(TABLE, detail=self._attribute))
        assert isinstance(items, tuple)
        return iter([k for k, _ in items])

    def __len__(self) -> int:
        items = self._view.read(Lookup(TABLE, detail=self._attribute))
        assert isinstance(items, tuple)
        return len(items)


class RecordedNames(Container[str]):
    def __init__(self, view: Reader) -> None:
        self._view = view

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._view.read(Lookup("bound", key)) is True


class RecordedTables:
    """The whole-file facts (`tables.WholeFile`) as a view sees them: every read recorded with its answer."""

    def __init__(self, view: Reader) -> None:
        self._view = view
        self.bound_names: Container[str] = RecordedNames(view)
        self.assigned: Mapping[str, Sequence[ast.expr]] = Recorded(view, "assigned", "assigned")
        self.functions: Mapping[str, FunctionNode] = Recorded(view, "function", "functions")
        self.classes: Mapping[str, ast.ClassDef] = Recorded(view, "class", "classes")
        self.methods: Mapping[str, Sequence[FunctionNode]] = Recorded(view, "methods", "methods")
        self.aliases: Mapping[str, str] = Recorded(view, "alias", "aliases")
        self.top_aliases: Mapping[str, str] = Recorded(view, "top_alias", "top_aliases")
        self.name_loads: Mapping[str, Sequence[ast.Name]] = Recorded(view, "name_loads", "name_loads")
        self.attribute_loads: Mapping[str, Sequence[ast.Attribute]] = Recorded(
            view, "attribute_loads", "attribute_loads"
        )

    def string_nodes(self, value: str) -> Sequence[ast.Constant]:
        return self._tuple(Lookup("strings", value))

    def key_adders(self, name: str) -> Sequence[ast.AST]:
        return self._tuple(Lookup("key_adders", name))

    def has_fast_parameter(self) -> bool:
        return self._view.read(Lookup("fast_parameter")) is True

    def flow_body(self) -> Sequence[ast.stmt]:
        return self._tuple(Lookup("flow_body"))

    def _tuple(self, lookup: Lookup) -> tuple[Any, ...]:
        found = self._view.read(lookup)
        assert isinstance(found, tuple)
        return found
