"""`LazyPattern`: a regular expression compiled the first time it is used, not when its module is imported.

The brief reader and the metric rules hold dozens of large patterns (alternations of every metric name); compiling
them at import cost `proctor check` about 25 ms of a 300 ms budget (SPEC §11) even for a workspace whose files
never reach them. A `LazyPattern` offers the `re.Pattern` methods those modules call, so a module-level
`NAME = LazyPattern(r"...")` reads like `re.compile` and costs nothing until a match is asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cached_property

__all__ = ["LazyPattern"]


class LazyPattern:
    """`re.compile(pattern, flags)`, deferred: `.pattern` and `.flags` are known at once, the program on use."""

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self.pattern = pattern
        self.flags = int(flags)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags})"

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern, self.flags)

    def match(self, string: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        if endpos is None:
            return self.compiled.match(string, pos)
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        if endpos is None:
            return self.compiled.fullmatch(string, pos)
        return self.compiled.fullmatch(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        if endpos is None:
            return self.compiled.search(string, pos)
        return self.compiled.search(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int | None = None) -> Iterator[re.Match[str]]:
        if endpos is None:
            return self.compiled.finditer(string, pos)
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str) -> list[str]:
        return self.compiled.findall(string)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str]:
        return self.compiled.split(string, maxsplit)
