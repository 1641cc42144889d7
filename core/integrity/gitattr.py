"""IN008 helpers: what `.gitattributes` would do to the bytes of protected files, and `.gitmodules` paths.

Proctor materializes from git objects, so attributes never change what it measures; IN008 still rejects a
candidate whose attributes would change the checked-out bytes of a protected file for anyone who checks it
out. That is computed the way git's convert.c computes it, not guessed from attribute names: a `filter`
driver or `ident` always counts; `text`/`eol`/`crlf` count only when they would turn a lone LF of the file's
actual content into CRLF (git never removes a CR on checkout, and `text` alone uses the platform's LF here);
`working-tree-encoding` counts when re-encoding the content from UTF-8 changes it. `diff`, `merge`,
`export-ignore`, `linguist-*` and every other attribute never change a checked-out byte. Patterns follow
gitattributes(5): a pattern without a slash matches a basename at any depth, otherwise it is anchored at
the file's directory; `**` spans directories; deeper files and later lines win; `[attr]` macros count only
in the top-level file. Matching ignores case (a case-insensitive checkout would).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from core.integrity.classify import ancestors, fold, within

_BUILTIN_MACROS = {"binary": ["-diff", "-merge", "-text"]}
# The attributes that feed git's checkout conversion (convert.c `convert_attrs`).
CONVERSION_ATTRS = frozenset({"text", "crlf", "eol", "filter", "ident", "working-tree-encoding"})

State = bool | str  # True: set, False: unset (`-x`), str: a value; unspecified attributes are absent


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


@lru_cache(maxsize=64)
def parsed(text: str) -> tuple[list[AttrLine], dict[str, list[str]]]:
    """`parse_gitattributes`, remembered by content (the same files are read for every protected path)."""
    return parse_gitattributes(text)


@dataclass(frozen=True)
class Setter:
    """The line that decided an attribute for a path."""

    file: str
    line: int
    pattern: str
    attrs: tuple[str, ...]

    def describe(self) -> str:
        return f"line {self.line}: `{self.pattern} {' '.join(self.attrs)}`"


def _assign(
    token: str, setter: Setter, macros: dict[str, list[str]], found: dict[str, tuple[State, Setter]]
) -> None:
    pending, seen = [token], set()
    while pending:
        item = pending.pop(0)
        name = item.lstrip("-!").split("=", 1)[0]
        if not name or name in seen:
            continue
        seen.add(name)
        if item.startswith("!"):
            found.pop(name, None)
            continue
        value: State = False if item.startswith("-") else (item.split("=", 1)[1] if "=" in item else True)
        found[name] = (value, setter)
        expansion = macros.get(name) or _BUILTIN_MACROS.get(name)
        if expansion and value is True:
            pending.extend(expansion)


def path_attributes(path: str, files: dict[str, str]) -> dict[str, tuple[State, Setter]]:
    """The attributes git gives the file `path` from the `.gitattributes` texts in `files` (by path)."""
    macros = parsed(files.get(".gitattributes", ""))[1]
    found: dict[str, tuple[State, Setter]] = {}
    for directory in ["", *ancestors(path)]:
        attr_path = f"{directory}/.gitattributes" if directory else ".gitattributes"
        text = files.get(attr_path)
        if not text:
            continue
        rel = path[len(directory) + 1 :] if directory else path
        for line in parsed(text)[0]:
            if pattern_matches(line.pattern, rel, is_dir=False):
                setter = Setter(attr_path, line.number, line.pattern, line.attrs)
                for token in line.attrs:
                    _assign(token, setter, macros, found)
    return found


def _lone_lf_becomes_crlf(content: bytes, auto: bool) -> bool:
    """git's `will_convert_lf_to_crlf` (with `gather_stats` and `convert_is_binary` for `text=auto`)."""
    crlf = content.count(b"\r\n")
    lone_lf = content.count(b"\n") - crlf
    if not lone_lf:
        return False
    if not auto:
        return True
    if content.count(b"\r") - crlf or b"\0" in content:
        return False  # any CR already there, or a lone CR / NUL (binary): the safer autocrlf leaves it
    control = content.translate(None, bytes(range(32, 127)) + bytes(range(128, 256)) + b"\b\t\x1b\x0c\n")
    nonprintable = len(control) - (1 if content.endswith(b"\x1a") else 0)
    printable = len(content) - len(control) - crlf * 2 - lone_lf
    return not (printable >> 7) < nonprintable


def _crlf_action(attrs: dict[str, tuple[State, Setter]]) -> tuple[str, Setter | None]:
    """git's `crlf_action` from `text` (else the legacy `crlf`) and `eol`, with the line that chose CRLF."""
    action = "undefined"
    for name in ("text", "crlf"):
        value = attrs[name][0] if name in attrs else None
        if value is True:
            action = "text"
        elif value is False:
            action = "binary"
        elif value in ("input", "auto"):
            action = str(value)
        if action != "undefined":
            break
    eol = attrs.get("eol")
    if action != "binary" and eol is not None and eol[0] == "crlf":
        return ("auto-crlf" if action == "auto" else "text-crlf"), eol[1]
    return action, None


def _reencodes(content: bytes, encoding: str) -> bool:
    if not content or encoding.replace("-", "").replace("_", "").lower() == "utf8":
        return False
    try:
        return content.decode("utf-8").encode(encoding) != content
    except (LookupError, UnicodeError):
        return True  # an encoding git may know and Python does not, or content that cannot be re-encoded


def conversions(attrs: dict[str, tuple[State, Setter]], content: bytes) -> list[tuple[str, Setter]]:
    """(what git would do to `content` on checkout, the deciding line) for each conversion that changes it."""
    found: list[tuple[str, Setter]] = []
    driver = attrs.get("filter")
    if driver is not None and isinstance(driver[0], str):
        found.append((f"runs the filter driver {driver[0]!r} on", driver[1]))
    ident = attrs.get("ident")
    if ident is not None and ident[0] is True:
        found.append(("expands $Id$ in", ident[1]))
    action, eol_setter = _crlf_action(attrs)
    if eol_setter is not None and _lone_lf_becomes_crlf(content, auto=action == "auto-crlf"):
        found.append(("turns the LF line endings into CRLF in", eol_setter))
    encoding = attrs.get("working-tree-encoding")
    if encoding is not None and isinstance(encoding[0], str) and _reencodes(content, encoding[0]):
        found.append((f"re-encodes to {encoding[0]}", encoding[1]))
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
