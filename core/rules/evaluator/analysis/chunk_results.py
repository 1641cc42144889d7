"""What the per-chunk rules found in a chunk, with the lookups it depends on, and the last lint of each
document (so the next lint knows which chunks were added or removed)."""

from __future__ import annotations

import ast
import threading
from collections import OrderedDict
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from operator import itemgetter

from core.diagnostics import Diagnostic, Position, Range, TextEdit
from core.rules.evaluator.analysis.chunks import Chunk
from core.rules.evaluator.analysis.recorded import FACT, TABLE, Lookup

__all__ = [
    "ALWAYS_CHECKED",
    "WIDE_KINDS",
    "ChunkResult",
    "Previous",
    "clear_previous",
    "previous_lint",
    "remember_lint",
    "shift_diagnostic",
]


_KIND = itemgetter(0)  # Lookup.kind
_SUBJECT = itemgetter(0, 1)  # Lookup.subject: (kind, key)


@dataclass
class ChunkResult:
    """What the per-chunk rules found in one chunk, and the whole-file lookups that result depends on."""

    reads: dict[Lookup, object]
    diagnostics: dict[str, list[Diagnostic]]  # by rule code, positions relative to the chunk
    facts: dict[str, list[object]]  # per-chunk inputs of whole-file rules (writes, random calls...)
    calls_by_name: dict[str, list[tuple[int, ast.Call]]] = field(default_factory=dict)
    # Which kinds of lookup `reads` holds, and whether any rule found something: both let a lint skip this
    # result without looking inside.
    kinds: frozenset[str] = field(init=False, repr=False, compare=False)
    has_diagnostics: bool = field(init=False, repr=False, compare=False)
    shifted: tuple[int, dict[str, list[Diagnostic]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    # The lookups as the dirty set of an edit names them (`Lookup.subject`).
    match_keys: AbstractSet[tuple[str, str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # `Lookup.kind` and `Lookup.subject` of every read, picked in C (a new chunk records many reads).
        self.kinds = frozenset(map(_KIND, self.reads))
        self.has_diagnostics = any(self.diagnostics.values())
        self.match_keys = frozenset(map(_SUBJECT, self.reads))

    def placed_diagnostics(self, line: int) -> dict[str, list[Diagnostic]]:
        """The diagnostics by code, moved to the chunk's document line (kept for the next lint)."""
        if not line:
            return self.diagnostics
        shifted = self.shifted
        if shifted is None or shifted[0] != line:
            moved = {
                code: [shift_diagnostic(d, line) for d in found] for code, found in self.diagnostics.items()
            }
            shifted = self.shifted = (line, moved)
        return shifted[1]


# Lookups whose answer is re-checked on every lint: the file system, and facts computed from other facts.
ALWAYS_CHECKED = frozenset({"exists", FACT})
# Lookups about the document as a whole: any added or removed chunk may change their answer.
WIDE_KINDS = frozenset({"module", "flow_body", TABLE})


@dataclass
class Previous:
    """The last lint of a document under one set of settings: its chunks, in order, with results valid then."""

    order: list[int]
    results: dict[int, tuple[Chunk, ChunkResult]]  # the chunk is held so that its id stays its own


_PREVIOUS: OrderedDict[object, Previous] = OrderedDict()
_PREVIOUS_LOCK = threading.Lock()
MAX_PREVIOUS = 32


def previous_lint(key: object) -> Previous | None:
    """The last lint of the document these settings (`key`) name, if it is still remembered."""
    with _PREVIOUS_LOCK:
        return _PREVIOUS.get(key)


def remember_lint(key: object, state: Previous) -> None:
    with _PREVIOUS_LOCK:
        _PREVIOUS[key] = state
        _PREVIOUS.move_to_end(key)
        while len(_PREVIOUS) > MAX_PREVIOUS:
            _PREVIOUS.popitem(last=False)


def clear_previous() -> None:
    with _PREVIOUS_LOCK:
        _PREVIOUS.clear()


def shift_diagnostic(diagnostic: Diagnostic, lines: int) -> Diagnostic:
    """The diagnostic moved down `lines` lines (a per-chunk result placed in its document)."""
    if not lines:
        return diagnostic
    fix = diagnostic.fix
    if fix is not None:
        fix = replace(
            fix, edits=tuple(TextEdit(e.path, _shift(e.range, lines), e.new_text) for e in fix.edits)
        )
    return Diagnostic(
        diagnostic.code,
        diagnostic.name,
        diagnostic.severity,
        diagnostic.path,
        _shift(diagnostic.range, lines),
        diagnostic.message,
        fix,
        diagnostic.related,
    )


def _shift(rng: Range, lines: int) -> Range:
    return Range(
        Position(rng.start.line + lines, rng.start.character),
        Position(rng.end.line + lines, rng.end.character),
    )
