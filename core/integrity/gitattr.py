"""IN008 helpers: which `.gitattributes` lines and `.gitmodules` entries reach protected paths.

Git reads attributes from the committed tree when it archives, diffs or checks out; a candidate's
`.gitattributes` can therefore drop the suite from `git archive` (`export-ignore`), rewrite it
(`export-subst`, `ident`, `eol`, `filter`) or hide a change from a diff (`diff`/`textconv`). Patterns follow
gitattributes(5): a pattern without a slash matches a basename at any depth, otherwise it is anchored at
the file's directory; `**` spans directories. Matching ignores case (a case-insensitive checkout would).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from core.integrity.classify import fold, within

# Attributes that change the bytes git writes, what `git archive` contains, or what a diff shows.
_DANGEROUS = frozenset(
    {
        "text",
        "eol",
        "crlf",
        "filter",
        "diff",
        "ident",
        "export-ignore",
        "export-subst",
        "working-tree-encoding",
        "merge",
    }
)
_BUILTIN_MACROS = {"binary": ["-diff", "-merge", "-text"]}


@dataclass(frozen=True)
class AttrLine:
    number: int
    pattern: str
    attrs: tuple[str, ...]


def _unquote(token: str) -> str:
    if len(token) >= 2 and token.startswith('"') and token.endswith('"'):
        body = token[1:-1]
        return re.sub(r"\\(.)", r"\1", body)
    return token


def _split(line: str) -> list[str]:
    match = re.match(r'\s*("(?:[^"\\]|\\.)*"|\S+)(.*)$', line)
    if not match:
        return []
    return [_unquote(match.group(1)), *match.group(2).split()]


def parse_gitattributes(text: str) -> tuple[list[AttrLine], dict[str, list[str]]]:
    """Lines with a pattern, and the `[attr]` macro definitions."""
    lines: list[AttrLine] = []
    macros: dict[str, list[str]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        tokens = _split(stripped)
        if not tokens:
            continue
        if tokens[0].startswith("[attr]"):
            macros[tokens[0][len("[attr]") :]] = tokens[1:]
            continue
        lines.append(AttrLine(number, tokens[0], tuple(tokens[1:])))
    return lines, macros


def _name(attr: str) -> str:
    return attr.lstrip("-!").split("=", 1)[0]


def dangerous_attrs(attrs: Iterable[str], macros: dict[str, list[str]]) -> list[str]:
    """The attributes (macros expanded) that can change what git writes or shows for a path."""
    found: list[str] = []
    seen: set[str] = set()
    pending = list(attrs)
    while pending:
        attr = pending.pop(0)
        name = _name(attr)
        if name in seen:
            continue
        seen.add(name)
        if name in macros or name in _BUILTIN_MACROS:
            if not attr.startswith(("-", "!")):
                pending.extend(macros.get(name) or _BUILTIN_MACROS[name])
            continue
        if name in _DANGEROUS:
            found.append(attr)
    return found


@lru_cache(maxsize=512)
def _compile(pattern: str) -> tuple[re.Pattern[str], bool, bool]:
    """(regex, anchored, directory-only) for one gitattributes pattern."""
    dir_only = pattern.endswith("/") and len(pattern) > 1
    body = pattern.rstrip("/") if dir_only else pattern
    anchored = "/" in body
    body = body.lstrip("/")
    out = []
    index = 0
    while index < len(body):
        char = body[index]
        at_start = index == 0 or body[index - 1] == "/"
        if body.startswith("**/", index) and at_start:
            out.append("(?:.*/)?")
            index += 3
            continue
        if body.startswith("**", index) and at_start and index + 2 == len(body):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            close = body.find("]", index + 2)
            if close == -1:
                out.append(re.escape(char))
            else:
                inner = body[index + 1 : close]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                index = close
        elif char == "\\" and index + 1 < len(body):
            index += 1
            out.append(re.escape(body[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out) + r"\Z", re.IGNORECASE | re.DOTALL), anchored, dir_only


def pattern_matches(pattern: str, rel: str, *, is_dir: bool) -> bool:
    """Does a gitattributes pattern (relative to its file's directory) match the relative path `rel`?"""
    regex, anchored, dir_only = _compile(pattern)
    if dir_only and not is_dir:
        return False
    subject = rel if anchored else rel.rsplit("/", 1)[-1]
    return regex.match(subject) is not None


def attribute_findings(
    attr_path: str, text: str, protected: dict[str, bool], macros: dict[str, list[str]] | None = None
) -> list[tuple[int, str, str, list[str]]]:
    """(line, pattern, first protected path it matches, dangerous attrs) for each harmful line of one file.

    `protected` maps workspace-relative protected paths to whether they are directories.
    """
    base = attr_path.rsplit("/", 1)[0] if "/" in attr_path else ""
    lines, own_macros = parse_gitattributes(text)
    all_macros = {**(macros or {}), **own_macros}
    hits = []
    for line in lines:
        bad = dangerous_attrs(line.attrs, all_macros)
        if not bad:
            continue
        for path, is_dir in protected.items():
            if base and not within(path, base):
                continue
            rel = path[len(base) + 1 :] if base else path
            if rel and pattern_matches(line.pattern, rel, is_dir=is_dir):
                hits.append((line.number, line.pattern, path, bad))
                break
    return hits


def gitmodules_paths(text: str) -> list[str]:
    """Every `path = ...` value of a `.gitmodules` file (git config syntax, quotes and comments allowed)."""
    paths = []
    for raw in text.splitlines():
        match = re.match(r"\s*path\s*=\s*(.*?)\s*$", raw, re.IGNORECASE)
        if not match:
            continue
        value = re.split(r"\s[#;]", match.group(1), maxsplit=1)[0].strip()
        paths.append(_unquote(value).strip("/"))
    return paths


def touches(path: str, roots: Iterable[str]) -> str | None:
    """The protected root that `path` equals, lies in, or contains (compared case- and normalization-folded)."""
    folded = fold(path)
    for root in roots:
        key = fold(root)
        if within(folded, key) or within(key, folded):
            return root
    return None
