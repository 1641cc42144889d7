"""Whole-file tables as a view sees them: every lookup goes through `Reader.read`, which records the answer,
so a cached result knows what it depended on."""

from __future__ import annotations

from collections.abc import Container, Iterator, Mapping
from typing import Protocol, TypeVar

__all__ = ["Reader", "Recorded", "RecordedNames"]

V = TypeVar("V")


class Reader(Protocol):
    def read(self, kind: str, key: str) -> object: ...


class Recorded(Mapping[str, V]):
    """A whole-file mapping as a chunk view sees it: every lookup is recorded with its answer."""

    def __init__(self, view: Reader, kind: str, attribute: str) -> None:
        self._view = view
        self._kind = kind
        self._attribute = attribute

    def __getitem__(self, key: str) -> V:
        value = self._view.read(self._kind, key)
        if value is None or value is False:
            raise KeyError(key)
        return value  # type: ignore[return-value]

    def get(self, key: str, default: V | None = None) -> V | None:  # type: ignore[override]
        value = self._view.read(self._kind, key)
        if value is None or value is False:
            return default
        return value  # type: ignore[return-value]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._view.read(self._kind, key) is not None

    def __iter__(self) -> Iterator[str]:
        items = self._view.read("all:" + self._attribute, "")
        assert isinstance(items, tuple)
        return iter([k for k, _ in items])

    def __len__(self) -> int:
        items = self._view.read("all:" + self._attribute, "")
        assert isinstance(items, tuple)
        return len(items)


class RecordedNames(Container[str]):
    def __init__(self, view: Reader) -> None:
        self._view = view

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._view.read("bound", key) is True
