"""Code-action and hover decisions over core values: which fixes apply, how a noqa comment is added.

Pure functions in code points; the server converts the results to LSP with `convert`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from core.diagnostics import Applicability, Diagnostic, Fix, Range, TextEdit
from core.fixes import select_fixes
from core.lint import NOQA

NOT_SUPPRESSIBLE = ("IN",)  # integrity findings are about the suite, not a line: a comment cannot waive them
_MD_NOQA = re.compile(r"<!--\s*proctor:\s*noqa(?::\s*[^>]*?)?\s*-->", re.IGNORECASE)
_PY_NOQA = re.compile(
    r"#\s*proctor:\s*noqa(?::\s*[A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*)?", re.IGNORECASE
)


def overlaps(a: Range, b: Range) -> bool:
    """Ranges touch or intersect (an empty range at a diagnostic's edge still selects it)."""
    return not (a.end < b.start or b.end < a.start)


def fixes_in(diagnostics: Iterable[Diagnostic], selection: Range) -> list[tuple[Diagnostic, Fix]]:
    return [(d, d.fix) for d in diagnostics if d.fix is not None and overlaps(d.range, selection)]


def suppressible(diagnostic: Diagnostic) -> bool:
    return not diagnostic.code.startswith(NOT_SUPPRESSIBLE)


def noqa_edit(relpath: str, lines: Sequence[str], line: int, code: str, *, markdown: bool) -> TextEdit | None:
    """The edit that silences `code` on `line`: extend its noqa comment, or append one.

    None when the line already silences every code (a bare `noqa`) or this one.
    """
    text = lines[line] if 0 <= line < len(lines) else ""
    pattern = _MD_NOQA if markdown else _PY_NOQA
    match = pattern.search(text)
    if match is not None:
        found = NOQA.search(match.group(0))
        codes = found.group("codes") if found else None
        if not codes:
            return None
        existing = [c.strip().upper() for c in codes.split(",")]
        if code.upper() in existing:
            return None
        start = match.start() + match.group(0).index(codes)
        end = start + len(codes)
        return TextEdit(relpath, Range.of(line, start, line, end), ", ".join([*existing, code]))
    comment = f"<!-- proctor: noqa: {code} -->" if markdown else f"# proctor: noqa: {code}"
    stripped = len(text.rstrip())
    separator = "" if stripped == 0 else " " if markdown else "  "
    return TextEdit(relpath, Range.of(line, stripped, line, len(text)), f"{separator}{comment}")


def fix_all_edits(diagnostics: Iterable[Diagnostic], relpath: str, text: str) -> list[TextEdit]:
    """Every safe autofix of this document that `core.fixes` can apply together (first come, no overlaps).

    Fix-all runs on save, so it applies what `proctor check --fix` applies: the safe fixes only. Unsafe
    fixes (the brief's placeholders, `strict=True`), and fixes that delete files or touch other files, are
    offered as their own quick fix for the user to pick.
    """
    own = [
        d
        for d in diagnostics
        if d.fix is not None
        and d.fix.applicability is Applicability.SAFE
        and not d.fix.delete_paths
        and all(e.path == relpath for e in d.fix.edits)
    ]
    return [edit for d in select_fixes(own, {relpath: text}) if d.fix is not None for edit in d.fix.edits]


def noqa_code_at(line: str, character: int) -> tuple[str, int, int] | None:
    """The rule code under the cursor inside a noqa comment, with its start and end columns."""
    match = NOQA.search(line)
    if match is None or match.group("codes") is None:
        return None
    offset = match.start("codes")
    for code in re.finditer(r"[A-Za-z]+[0-9]+", match.group("codes")):
        start, end = offset + code.start(), offset + code.end()
        if start <= character <= end:
            return code.group(0).upper(), start, end
    return None
