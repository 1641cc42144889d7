"""Output hygiene (SPEC §10): what candidates and evaluators wrote is shown, never obeyed.

Text from a candidate (paths, metric names, log tails, finding details) may hold Markdown, HTML, `@mentions`
that would notify people, `#123` references that would link issues, or more text than GitHub accepts. Inline
text is escaped and neutralised; logs go into a code fence longer than any backtick run inside them; every
field is cut to GitHub's limits with a pointer to where the rest is.
"""

from __future__ import annotations

import re

TITLE_LIMIT = 255
SUMMARY_LIMIT = 65_535
COMMENT_LIMIT = 65_536
ANNOTATION_MESSAGE_LIMIT = 64 * 1024 - 1
ANNOTATION_TITLE_LIMIT = 255
_ZWSP = "\u200b"
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_REF = re.compile(r"#(?=\d)")  # `#12` and `owner/repo#12`
_GH_REF = re.compile(r"\bGH-(?=\d)", re.IGNORECASE)
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~>-])")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def neutralise(text: str) -> str:
    """No notification, no issue link: a zero-width space after `@` and `#`, and inside `GH-12`."""
    text = _GH_REF.sub(lambda m: m.group(0)[:2] + _ZWSP + "-", text)
    return _REF.sub("#" + _ZWSP, _MENTION.sub("@" + _ZWSP, text))


def plain(text: str, limit: int = TITLE_LIMIT) -> str:
    """Plain text (check-run titles, annotation fields): one line, neutralised, cut."""
    one_line = " ".join(_CONTROL.sub("", text).split())
    return cut(neutralise(one_line), limit)


def inline(text: str, limit: int = 1000) -> str:
    """Candidate text inside Markdown: HTML-escaped, Markdown specials escaped, neutralised, one line."""
    one_line = neutralise(" ".join(_CONTROL.sub("", text).split()))
    escaped = "".join(_HTML.get(ch, ch) for ch in one_line)
    escaped = _MARKDOWN.sub(lambda m: m.group(1) if m.group(1) in "<>" else "\\" + m.group(1), escaped)
    return cut(escaped, limit)


def code_block(text: str, limit: int = 8000) -> str:
    """A fenced block: nothing inside is Markdown, HTML, a mention or a reference."""
    body = _CONTROL.sub("", text)
    if len(body) > limit:
        body = "…" + body[-limit:]
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}"


def cut(text: str, limit: int, pointer: str = "") -> str:
    """`text` within `limit` characters; when cut, it ends with `…` and the pointer to the rest."""
    if len(text) <= limit:
        return text
    tail = f"\n\n… (cut to GitHub's limit{'; ' + pointer if pointer else ''})" if pointer else "…"
    return text[: max(0, limit - len(tail))] + tail
