"""The brief reader's entry points: `parse_brief` (never raises) and `protocol_at` (editor hover)."""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from core.brief.fields import parse_protocol
from core.brief.markdown import goal_before, read_goal, read_sections, visible_lines
from core.brief.model import Brief, Protocol
from core.diagnostics import Position, Range
from core.lines import split_lines
from core.patterns import LazyPattern

_T = TypeVar("_T")

# Characters that render as nothing (zero-width, bidi controls, soft hyphen): BR010 reports them, and the parser
# reads the text without them, so "se\u200bed 42" is still a seed and "80/\u200b20" still a split.
INVISIBLE = LazyPattern("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def parse_brief(text: str) -> Brief:
    """Parse a Markdown brief. Never raises: what is not there is None (the BR rules say so). Invisible
    characters are ignored; every position still refers to `text` as written."""
    if INVISIBLE.search(text) is None:
        return _parse_visible(text)
    columns = [
        [i for i, ch in enumerate(line) if not INVISIBLE.match(ch)] + [len(line)]
        for line in split_lines(text)
    ]
    return _remap(_parse_visible(INVISIBLE.sub("", text)), columns)


def _remap(value: _T, columns: list[list[int]]) -> _T:
    """`value` with every Position moved from the text without invisible characters back to the text."""
    if isinstance(value, Position):
        line = columns[value.line] if value.line < len(columns) else [value.character]
        return Position(value.line, line[min(value.character, len(line) - 1)])  # type: ignore[return-value]
    if isinstance(value, Range):
        return Range(_remap(value.start, columns), _remap(value.end, columns))  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(_remap(v, columns) for v in value)  # type: ignore[return-value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _remap(getattr(value, f.name), columns) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    return value


def _parse_visible(text: str) -> Brief:
    lines, fenced = visible_lines(text)
    sections = read_sections(lines, fenced)
    protocol = parse_protocol(lines, fenced)
    goal = read_goal(lines, fenced, sections)
    if goal is not None and protocol is not None:
        goal = goal_before(goal, protocol.range.start.line, lines)
    return Brief(goal, protocol, sections)


def protocol_at(text: str, line: int) -> Protocol | None:
    """The protocol when zero-based `line` is on the `Measured by` line(s) (editor hover), else None."""
    protocol = parse_brief(text).protocol
    if protocol is None or not protocol.range.start.line <= line <= protocol.range.end.line:
        return None
    return protocol
