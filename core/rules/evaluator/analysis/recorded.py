"""Whole-file lookups as a view records them: one typed `Lookup` per question, and tables whose every read
goes through `Reader.read` (which records the answer), so a cached result knows what it depended on."""

from __future__ import annotations

from collections.abc import Container, Iterator, Mapping
from typing import NamedTuple, Protocol, TypeVar

__all__ = ["FACT", "TABLE", "Lookup", "Reader", "Recorded", "RecordedNames"]

V = TypeVar("V")


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
