"""`split_lines` breaks where `ast` and LSP do, with or without carriage returns (two code paths)."""

from __future__ import annotations

import pytest

from core.lines import LINE_BREAK, split_lines


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "a",
        "a\n",
        "a\nb\n\n",
        "a\x0cb\u2028c\x85d\x1ce\nf",
        "a\r\nb\rc\n",
        "\r",
        "\r\n\r\n",
        "a\r\r\nb",
    ],
)
def test_split_lines_matches_the_line_break_pattern(text: str) -> None:
    assert split_lines(text) == LINE_BREAK.split(text)


def test_only_lf_cr_and_crlf_break_lines() -> None:
    assert split_lines("a\x0cb\u2028c\nd") == ["a\x0cb\u2028c", "d"]
    assert split_lines("a\r\nb\rc") == ["a", "b", "c"]
