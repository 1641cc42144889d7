"""Markdown structure of a brief: fences, HTML comments, headings and sections, the Goal, and the lines of
the `Measured by` protocol with a map from its joined text back to positions."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from core.brief.model import Field, Goal, Section
from core.diagnostics import Position, Range
from core.lines import split_lines
from core.patterns import LazyPattern

_HEADING = LazyPattern(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FENCE = LazyPattern(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = LazyPattern(r"^(\s*)(?:[-*+]|\d+[.)])\s+")
_EMPH = r"(?:\*\*|__|\*|_)?"
_MEASURED = LazyPattern(
    r"^(?P<lead>[ \t]{0,3}(?:>[ \t]*)*(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:#{1,6}[ \t]+)?)"
    rf"(?P<label>{_EMPH}[ \t]*measured[ \t-]+by\b[ \t]*{_EMPH}[ \t]*[:\-–—]?[ \t]*{_EMPH})",
    re.IGNORECASE,
)
_GOAL_LINE = LazyPattern(
    rf"^[ \t]{{0,3}}(?:>[ \t]*)*(?:(?:[-*+]|\d+[.)])[ \t]+)?{_EMPH}[ \t]*goals?[ \t]*{_EMPH}[ \t]*:[ \t]*{_EMPH}[ \t]*",
    re.IGNORECASE,
)
_OTHER_LABEL = LazyPattern(
    rf"^[ \t]{{0,3}}(?:(?:[-*+]|\d+[.)])[ \t]+)?{_EMPH}[ \t]*(?:goals?|rules|constraints|notes?)[ \t]*{_EMPH}[ \t]*:",
    re.IGNORECASE,
)


def fenced_lines(lines: Sequence[str]) -> set[int]:
    """Line numbers inside (or opening/closing) fenced code blocks: never read as brief structure."""
    fenced: set[int] = set()
    marker: str | None = None
    for number, line in enumerate(lines):
        match = _FENCE.match(line)
        if marker is None:
            if match:
                marker = match.group(1)
                fenced.add(number)
        else:
            fenced.add(number)
            if match and match.group(1)[0] == marker[0] and len(match.group(1)) >= len(marker):
                marker = None
    return fenced


_COMMENT_OPEN = "<!--"
_COMMENT_CLOSE = "-->"


def visible_lines(text: str) -> tuple[list[str], set[int]]:
    """The brief's lines with HTML comments blanked out, and the fenced lines.

    A comment (`<!-- ... -->`, possibly over several lines) is not brief text: a commented-out `Measured by`
    line or a `<!-- proctor: noqa: BR004 -->` marker must not be read as the protocol or its fields. Comment
    characters become spaces so every position (line, code-point column) stays where it was; a line that held
    only a comment becomes blank, which ends a paragraph as the HTML block does in Markdown. Comment markers
    inside fenced code blocks are literal text and stay.
    """
    lines = split_lines(text)
    fenced = fenced_lines(lines)
    visible: list[str] = []
    inside = False
    for number, line in enumerate(lines):
        if number in fenced:
            visible.append(line)
            continue
        parts: list[str] = []
        position = 0
        while position < len(line):
            if inside:
                close = line.find(_COMMENT_CLOSE, position)
                end = len(line) if close < 0 else close + len(_COMMENT_CLOSE)
                parts.append(" " * (end - position))
                inside = close < 0
                position = end
            else:
                start = line.find(_COMMENT_OPEN, position)
                if start < 0:
                    parts.append(line[position:])
                    break
                parts.append(line[position:start])
                inside = True
                position = start
        visible.append("".join(parts))
    return visible, fenced


def read_sections(lines: Sequence[str], fenced: set[int]) -> tuple[Section, ...]:
    headings: list[tuple[int, int, str]] = []
    for number, line in enumerate(lines):
        if number in fenced:
            continue
        match = _HEADING.match(line)
        if match:
            headings.append((number, len(match.group(1)), (match.group(2) or "").strip()))
    sections = []
    for index, (number, level, title) in enumerate(headings):
        end = len(lines) - 1
        for later, later_level, _title in headings[index + 1 :]:
            if later_level <= level:
                end = later - 1
                break
        while end > number and not lines[end].strip():
            end -= 1
        body = "\n".join(lines[number + 1 : end + 1]).strip()
        sections.append(Section(title, level, Range.of(number, 0, end, len(lines[end])), body))
    return tuple(sections)


def read_goal(lines: Sequence[str], fenced: set[int], sections: Sequence[Section]) -> Goal | None:
    goal_section = next((s for s in sections if re.match(r"goals?\b", s.title, re.IGNORECASE)), None)
    goal_line: Goal | None = None
    for number, line in enumerate(lines):
        if number in fenced or _HEADING.match(line):
            continue
        match = _GOAL_LINE.match(line)
        if match is None:
            continue
        end = number
        parts = [line[match.end() :].strip()]
        while end + 1 < len(lines) and lines[end + 1].strip() and (end + 1) not in fenced:
            following = lines[end + 1]
            if _HEADING.match(following) or _LIST_ITEM.match(following) or _OTHER_LABEL.match(following):
                break
            if _MEASURED.match(following):
                break
            end += 1
            parts.append(following.strip())
        goal_line = Goal(" ".join(p for p in parts if p), Range.of(number, 0, end, len(lines[end])))
        break
    if goal_section is not None and (goal_line is None or goal_section.range.start <= goal_line.range.start):
        # The goal is the text up to the next heading of any level (a `## Rules` under `# Goal` is not the goal).
        start = goal_section.range.start.line
        end = start
        for number in range(start + 1, goal_section.range.end.line + 1):
            if number not in fenced and _HEADING.match(lines[number]):
                break
            if lines[number].strip():
                end = number
        title_rest = re.sub(r"^goals?\s*:?\s*", "", goal_section.title, flags=re.IGNORECASE)
        body = "\n".join(lines[start + 1 : end + 1]).strip()
        text = " ".join(part for part in (title_rest, body) if part)
        return Goal(text, Range.of(start, 0, end, len(lines[end])))
    return goal_line


def goal_before(goal: Goal, protocol_line: int, lines: Sequence[str]) -> Goal:
    """A `# Goal` section that also holds the Measured by line ends before it: the protocol is not the goal."""
    if not goal.range.start.line < protocol_line <= goal.range.end.line:
        return goal
    end = protocol_line - 1
    while end > goal.range.start.line and not lines[end].strip():
        end -= 1
    head = lines[goal.range.start.line]
    body = lines[goal.range.start.line + 1 : end + 1]
    heading = _HEADING.match(head)
    if heading:
        title = re.sub(r"^goals?\s*:?\s*", "", (heading.group(2) or "").strip(), flags=re.IGNORECASE)
    else:
        match = _GOAL_LINE.match(head)
        title = head[match.end() :].strip() if match else head.strip()
    text = " ".join(part for part in (title, "\n".join(body).strip()) if part)
    return Goal(text, Range.of(goal.range.start.line, 0, end, len(lines[end])))


# The protocol text: segments of lines joined with "\n", with a map back to positions


class ProtocolText:
    def __init__(self, segments: Sequence[tuple[int, int, str]]) -> None:
        self.segments = list(segments)
        self.offsets: list[int] = []
        parts = []
        offset = 0
        for _line, _col, chunk in self.segments:
            self.offsets.append(offset)
            parts.append(chunk)
            offset += len(chunk) + 1
        self.text = "\n".join(parts)

    def position(self, offset: int) -> Position:
        index = max(bisect.bisect_right(self.offsets, offset) - 1, 0)
        line, col, chunk = self.segments[index]
        return Position(line, col + min(offset - self.offsets[index], len(chunk)))

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(end))

    def field(self, value: str, start: int, end: int) -> Field:
        return Field(value, self.range(start, end))


def find_protocol_lines(
    lines: Sequence[str], fenced: set[int]
) -> tuple[int, re.Match[str], list[tuple[int, int, str]]] | None:
    for number, line in enumerate(lines):
        if number in fenced:
            continue
        match = _MEASURED.match(line)
        if match is None:
            continue
        segments: list[tuple[int, int, str]] = []
        rest = line[match.end() :]
        stripped = rest.strip()
        if stripped:
            segments.append((number, match.end() + (len(rest) - len(rest.lstrip())), stripped))
        is_heading = "#" in match.group("lead")
        item = _LIST_ITEM.match(line)
        item_indent = len(item.group(1)) if item else None
        current = number + 1
        if not segments:  # "Measured by:" alone (or a heading): the protocol is the next paragraph or list
            while current < len(lines) and not lines[current].strip() and current - number <= 2:
                current += 1
        while current < len(lines) and current not in fenced:
            following = lines[current]
            if not following.strip() or _HEADING.match(following) or _OTHER_LABEL.match(following):
                break
            sub_item = _LIST_ITEM.match(following)
            if sub_item and item_indent is not None and len(sub_item.group(1)) <= item_indent:
                break
            content = re.sub(r"^[ \t]*(?:>[ \t]*)*", "", following)
            col = len(following) - len(content)
            content = content.rstrip()
            if content:
                segments.append((current, col, content))
            current += 1
        if is_heading and not segments:
            continue
        return number, match, segments
    return None
