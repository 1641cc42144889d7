"""Applying autofixes (`proctor check --fix`, the editor's fix-all): text edits and file deletions.

Fixes are applied in passes: each pass takes every fix that does not overlap one already taken, writes the
changed files atomically (core.atomic) and lints again, until nothing is left to fix or `max_passes` is
reached. A fix whose finding comes back unchanged is not applied a second time (a template fix that leaves a
`<placeholder>` must not append itself forever). Only safe fixes are applied unless `unsafe` is set.

No fix may break code: before a file is written, `verify(relpath, old, new)` (from `core.check`: the result
parses, no name is used before its import, no new finding) may refuse each fix; a refused fix is not written
and is reported in `FixReport.refused` with the reason ("fix refused: ...").
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from core.atomic import atomic_write_bytes
from core.diagnostics import Applicability, Diagnostic, Position, TextEdit

__all__ = ["FixReport", "Refused", "Verifier", "apply_edits", "apply_fixes", "offset_of", "select_fixes"]

# (relpath, text before, text after) -> why the change must not be written, or None to write it.
Verifier = Callable[[str, str, str], str | None]

BOM = "\ufeff"
_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Refused:
    """A fix that was not written because the result would be worse (`reason` says how)."""

    diagnostic: Diagnostic
    reason: str


@dataclass(frozen=True)
class FixReport:
    """What `apply_fixes` did: the findings it fixed, the files it rewrote or deleted, and what is left."""

    fixed: tuple[Diagnostic, ...]
    changed_paths: tuple[str, ...]
    deleted_paths: tuple[str, ...]
    passes: int
    remaining: tuple[Diagnostic, ...]
    refused: tuple[Refused, ...] = ()

    @property
    def count(self) -> int:
        return len(self.fixed)


def offset_of(text: str, position: Position) -> int:
    """Code-point offset of a zero-based (line, character) position; clamped to the line and the text."""
    starts, lengths = _line_index(text)
    if position.line >= len(starts):
        return len(text)
    line = max(position.line, 0)
    return starts[line] + min(max(position.character, 0), lengths[line])


@functools.lru_cache(maxsize=16)
def _line_index(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    starts = [0]
    lengths = []
    for match in _BREAK.finditer(text):
        lengths.append(match.start() - starts[-1])
        starts.append(match.end())
    lengths.append(len(text) - starts[-1])
    return tuple(starts), tuple(lengths)


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """Apply non-overlapping edits to one text; insertions at the same point keep their order."""
    spans = sorted(
        (
            (offset_of(text, e.range.start), offset_of(text, e.range.end), index, e)
            for index, e in enumerate(edits)
        ),
        key=lambda item: (item[0], item[1], item[2]),
    )
    out: list[str] = []
    cursor = 0
    for start, end, _index, edit in spans:
        if start < cursor or end < start:
            raise ValueError(f"overlapping or inverted edit at {edit.range.start} in {edit.path}")
        out.append(text[cursor:start])
        out.append(edit.new_text)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a[0] == a[1] or b[0] == b[1]:  # an insertion conflicts only with a replacement strictly around it
        point, other = (a, b) if a[0] == a[1] else (b, a)
        return other[0] < point[0] < other[1]
    return a[0] < b[1] and b[0] < a[1]


def select_fixes(diagnostics: Iterable[Diagnostic], texts: dict[str, str]) -> list[Diagnostic]:
    """The diagnostics whose fixes can be applied together: first come, first served, no overlaps.

    `texts` maps each edited path to its current text (positions are resolved against it). A fix that edits a
    file another fix deletes, or a file that is not in `texts`, is left for a later pass.
    """
    taken: list[Diagnostic] = []
    spans: dict[str, list[tuple[int, int]]] = {}
    deleted: set[str] = set()
    for diagnostic in diagnostics:
        fix = diagnostic.fix
        if fix is None or (not fix.edits and not fix.delete_paths):
            continue
        mine: dict[str, list[tuple[int, int]]] = {}
        ok = True
        for edit in fix.edits:
            text = texts.get(edit.path)
            if text is None or edit.path in deleted or edit.path in fix.delete_paths:
                ok = False
                break
            span = (offset_of(text, edit.range.start), offset_of(text, edit.range.end))
            if span[1] < span[0] or any(
                _overlap(span, other) for other in spans.get(edit.path, []) + mine.get(edit.path, [])
            ):
                ok = False
                break
            mine.setdefault(edit.path, []).append(span)
        if ok and any(path in spans for path in fix.delete_paths):
            ok = False
        if not ok:
            continue
        for path, new in mine.items():
            spans.setdefault(path, []).extend(new)
        deleted.update(fix.delete_paths)
        taken.append(diagnostic)
    return taken


def _inside(workspace: Path, relpath: str) -> Path | None:
    target = (workspace / relpath).resolve()
    root = workspace.resolve()
    return target if target == root or root in target.parents else None


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _key(diagnostic: Diagnostic) -> tuple[str, str, Position, str]:
    return (diagnostic.path, diagnostic.code, diagnostic.range.start, diagnostic.message)


def _applicable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    fix = diagnostic.fix
    return fix is not None and (unsafe or fix.applicability is Applicability.SAFE)


def _verified(
    relpath: str, text: str, chosen: Sequence[Diagnostic], verify: Verifier | None
) -> tuple[list[Diagnostic], list[Refused]]:
    """The fixes for one file that can be written together, each checked on the text with those before it."""
    if verify is None:
        return list(chosen), []
    kept: list[Diagnostic] = []
    refused: list[Refused] = []
    edits: list[TextEdit] = []
    for diagnostic in chosen:
        assert diagnostic.fix is not None
        mine = [e for e in diagnostic.fix.edits if e.path == relpath]
        reason = verify(relpath, text, apply_edits(text, [*edits, *mine]))
        if reason is None:
            kept.append(diagnostic)
            edits.extend(mine)
        else:
            refused.append(Refused(diagnostic, reason))
    return kept, refused


def apply_fixes(
    workspace: Path,
    lint: Callable[[], Sequence[Diagnostic]],
    *,
    max_passes: int = 4,
    unsafe: bool = False,
    verify: Verifier | None = None,
) -> FixReport:
    """Fix what `lint()` reports in `workspace` until it is stable; returns what changed and what is left.

    `lint` returns diagnostics with workspace-relative paths (as `core.check` makes them). Safe fixes only,
    unless `unsafe`; `verify` may refuse a fix (see the module doc).
    """
    fixed: list[Diagnostic] = []
    refused: list[Refused] = []
    applied: set[tuple[str, str, Position, str]] = set()
    changed: set[str] = set()
    deleted: set[str] = set()
    diagnostics = list(lint())
    passes = 0
    while passes < max_passes:
        candidates = [d for d in diagnostics if _applicable(d, unsafe) and _key(d) not in applied]
        texts, boms = _read_texts(workspace, {e.path for d in candidates if d.fix for e in d.fix.edits})
        chosen = select_fixes(candidates, texts)
        refused.extend(_refusals(texts, chosen, verify))
        refused_keys = {_key(r.diagnostic) for r in refused}
        applied.update(refused_keys)
        chosen = [d for d in chosen if _key(d) not in refused_keys]
        if not chosen:
            break
        passes += 1
        wrote = _write_edits(workspace, chosen, texts, boms)
        gone = _delete_files(workspace, chosen)
        changed |= wrote
        deleted |= gone
        fixed.extend(chosen)
        applied.update(_key(d) for d in chosen)
        diagnostics = list(lint())
        if not wrote and not gone:
            break
    return FixReport(
        tuple(fixed),
        tuple(sorted(changed - deleted)),
        tuple(sorted(deleted)),
        passes,
        tuple(diagnostics),
        tuple(refused),
    )


def _read_texts(workspace: Path, paths: set[str]) -> tuple[dict[str, str], set[str]]:
    """The current text of each readable file inside the workspace (without its BOM), and which had one."""
    texts: dict[str, str] = {}
    boms: set[str] = set()
    for relpath in sorted(paths):
        target = _inside(workspace, relpath)
        text = _read_text(target) if target is not None else None
        if text is None:
            continue
        if text.startswith(BOM):
            boms.add(relpath)
            text = text[1:]
        texts[relpath] = text
    return texts, boms


def _refusals(texts: dict[str, str], chosen: Sequence[Diagnostic], verify: Verifier | None) -> list[Refused]:
    """The chosen fixes `verify` refuses, file by file."""
    refused: list[Refused] = []
    for relpath, text in texts.items():
        mine = [d for d in chosen if d.fix is not None and any(e.path == relpath for e in d.fix.edits)]
        refused.extend(_verified(relpath, text, mine, verify)[1])
    return refused


def _write_edits(
    workspace: Path, chosen: Sequence[Diagnostic], texts: dict[str, str], boms: set[str]
) -> set[str]:
    """Write the chosen fixes' edits, file by file (keeping a BOM and CRLF line ends); the paths changed."""
    by_path: dict[str, list[TextEdit]] = {}
    for diagnostic in chosen:
        assert diagnostic.fix is not None
        for edit in diagnostic.fix.edits:
            by_path.setdefault(edit.path, []).append(edit)
    changed: set[str] = set()
    for relpath, edits in by_path.items():
        if "\r\n" in texts[relpath]:  # keep a CRLF file CRLF: rules write "\n" in their edits
            edits = [replace(e, new_text=re.sub(r"\r?\n", "\r\n", e.new_text)) for e in edits]
        new_text = apply_edits(texts[relpath], edits)
        if new_text != texts[relpath]:
            prefix = BOM if relpath in boms else ""
            target = _inside(workspace, relpath)
            assert target is not None
            _write_preserving_mode(target, (prefix + new_text).encode("utf-8"))
            changed.add(relpath)
    return changed


def _delete_files(workspace: Path, chosen: Sequence[Diagnostic]) -> set[str]:
    """Delete the files the chosen fixes delete (EV017's stale result.json); the paths deleted."""
    deleted: set[str] = set()
    for diagnostic in chosen:
        assert diagnostic.fix is not None
        for relpath in diagnostic.fix.delete_paths:
            target = _inside(workspace, relpath)
            if target is not None and target.is_file():
                target.unlink()
                deleted.add(relpath)
    return deleted


def _write_preserving_mode(target: Path, data: bytes) -> None:
    """atomic_write_bytes creates a fresh file; keep an executable evaluator executable."""
    mode = None
    with contextlib.suppress(OSError):
        mode = target.stat().st_mode & 0o7777
    atomic_write_bytes(target, data)
    if mode is not None:
        with contextlib.suppress(OSError):
            os.chmod(target, mode)
