"""Lines as `ast`, the tokenizer, LSP and every rule count them: broken at `\\n`, `\\r\\n` or `\\r` only.

`str.splitlines` also breaks on form feeds, `\\x0b`, `\\x1c`-`\\x1e`, `\\x85` and U+2028/U+2029, which would
put a position (or a noqa comment) on another line. This is the one place that splits text into lines.
"""

from __future__ import annotations

import re

__all__ = ["LINE_BREAK", "split_lines"]

LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines without their terminators (`"a\\n"` is two lines, the last one empty)."""
    if "\r" not in text:  # most text: `str.split` is five times faster than the pattern
        return text.split("\n")
    return LINE_BREAK.split(text)
