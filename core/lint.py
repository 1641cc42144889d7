"""The rule engine's front door: text in, diagnostics out. The CLI, the editor and the app all call this.

`lint_document` is pure apart from what the `LintContext` lets rules read; it applies `# proctor: noqa`
comments and `select`/`ignore` (code prefixes, like ruff: `EV` selects every evaluator rule).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from core.config_view import CONFIG_FILE, PYPROJECT_FILE, ConfigView, evaluator_entry
from core.diagnostics import Applicability, Diagnostic, Fix
from core.lines import split_lines
from core.rules import brief as brief_rules
from core.rules import config as config_rules
from core.rules import evaluator as evaluator_rules
from core.rules.base import DocumentKind, LintContext

NOQA = re.compile(
    r"proctor:\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*))?", re.IGNORECASE
)


def classify(relpath: str, config: ConfigView) -> DocumentKind | None:
    """Which rules apply to the workspace-relative `relpath`, or None when none do."""
    path = PurePosixPath(relpath)
    posix = path.as_posix()
    if posix == evaluator_entry(config):
        return DocumentKind.EVALUATOR
    suite = PurePosixPath(config.evaluation_dir)
    if path.suffix == ".py" and (suite == path.parent or suite in path.parents):
        return DocumentKind.SUITE_PYTHON
    if posix == PurePosixPath(config.brief).as_posix() or path.name.endswith(".brief.md"):
        return DocumentKind.BRIEF
    if posix in (CONFIG_FILE, PYPROJECT_FILE):
        return DocumentKind.CONFIG
    return None


def lint_document(
    relpath: str,
    text: str,
    kind: DocumentKind,
    ctx: LintContext,
    *,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    incremental: bool = True,
) -> list[Diagnostic]:
    """All diagnostics for one document, noqa and select/ignore applied, sorted by position.

    `incremental=False` lints from one whole-file parse without touching the chunk caches: what a one-shot
    `proctor check` wants (nothing to reuse), and what the tests hold the incremental lint equal to."""
    if kind in (DocumentKind.EVALUATOR, DocumentKind.SUITE_PYTHON):
        lint = evaluator_rules.lint if incremental else evaluator_rules.lint_reference
        found: Iterable[Diagnostic] = lint(relpath, text, kind, ctx)
    elif kind is DocumentKind.BRIEF:
        found = brief_rules.lint(relpath, text, ctx)
    else:
        found = config_rules.lint(relpath, text, ctx)
    kept = [with_fix_safety(d) for d in found if is_selected(d.code, select, ignore)]
    if kept and text.isascii():
        # Only lines that contain "noqa" can silence anything: find those instead of splitting the whole
        # text on every keystroke (ASCII only, where lower-casing keeps every offset).
        noqa_lines = _lines_containing(text, text.lower(), "noqa")
        if noqa_lines:
            kept = [d for d in kept if not _suppressed_on(d, noqa_lines.get(d.range.start.line))]
    elif kept and NOQA.search(text) is not None:
        lines = split_lines(text)
        kept = [d for d in kept if not is_suppressed(d, lines)]
    return sorted(kept, key=lambda d: (d.range.start, d.code))


def with_fix_safety(diagnostic: Diagnostic) -> Diagnostic:
    """The diagnostic with its fix marked unsafe when its rule's fixes are (the rule table decides)."""
    fix = diagnostic.fix
    if fix is None or fix.applicability is Applicability.UNSAFE:
        return diagnostic
    if diagnostic.code not in _unsafe_fix_codes():
        return diagnostic
    # Built directly: `dataclasses.replace` twice per fix was a noticeable share of a keystroke's lint.
    unsafe = Fix(fix.title, fix.edits, fix.delete_paths, Applicability.UNSAFE)
    d = diagnostic
    return Diagnostic(d.code, d.name, d.severity, d.path, d.range, d.message, unsafe, d.related)


@functools.cache
def _unsafe_fix_codes() -> frozenset[str]:
    """The linted rules (EV, BR, CF) whose fixes are unsafe; the integrity rules have no fixes."""
    infos = (*evaluator_rules.RULE_INFOS, *brief_rules.RULE_INFOS, *config_rules.RULE_INFOS)
    return frozenset(info.code for info in infos if info.fix_safety is Applicability.UNSAFE)


def _lines_containing(text: str, lowered: str, needle: str) -> dict[int, str]:
    """Zero-based line number -> line text (as `split_lines` splits) of every line where `lowered` has `needle`."""
    found: dict[int, str] = {}
    carriage_returns = "\r" in text
    at = lowered.find(needle)
    line, counted_to = 0, 0
    while at != -1:
        line += text.count("\n", counted_to, at)
        if carriage_returns:
            line += text.count("\r", counted_to, at) - text.count("\r\n", counted_to, at)
        counted_to = at
        start = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
        end = len(text)
        for brk in ("\n", "\r") if carriage_returns else ("\n",):
            index = text.find(brk, at)
            if index != -1:
                end = min(end, index)
        found[line] = text[start:end]
        at = lowered.find(needle, end)
    return found


def _suppressed_on(diagnostic: Diagnostic, line: str | None) -> bool:
    if line is None:
        return False
    codes = noqa_codes(line)
    return codes is not None and (not codes or diagnostic.code in codes)


def is_selected(code: str, select: Sequence[str], ignore: Sequence[str]) -> bool:
    code = code.upper()
    if select and not any(code.startswith(s.strip().upper()) for s in select if s.strip()):
        return False
    return not any(code.startswith(i.strip().upper()) for i in ignore if i.strip())


def noqa_codes(line: str) -> set[str] | None:
    """Codes silenced on `line`: None when there is no noqa comment, an empty set for a bare `noqa`."""
    match = NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    return {c.strip().upper() for c in codes.split(",")} if codes else set()


def is_suppressed(diagnostic: Diagnostic, lines: Sequence[str]) -> bool:
    line_no = diagnostic.range.start.line
    if not 0 <= line_no < len(lines):
        return False
    codes = noqa_codes(lines[line_no])
    return codes is not None and (not codes or diagnostic.code in codes)
