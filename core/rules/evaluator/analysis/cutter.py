"""Cut a Python document into top-level statement chunks, each parsed and indexed once (editor speed, SPEC §11).

A document is cut before lines that start at column 0 with something other than a comment, a closing
bracket, a decorator's target or a continuation keyword (`else`, `elif`, `except`, `finally`). The cut is
*certain* when every chunk parses on its own: a chunk that parses ends outside any string, bracket or
backslash continuation, so the tokenizer state at the cut is the same as at the start of a file, and no
chunk starts with a keyword that would continue the previous statement; the whole module is then exactly
the chunks' statements in order. A chunk that fails to parse is merged with the next one (a docstring whose
lines start at column 0), within a budget; when that does not help, the whole text is parsed, so the
syntax error (EV001) is the parser's own, unchanged.

Chunks are cached by their text (LRU), with positions relative to the chunk: nothing here knows where a
chunk sits in a document, so an edit above it does not invalidate it. Cached trees are never mutated.
"""

from __future__ import annotations

import ast
import bisect
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from core.rules.evaluator.analysis.ast_utils import parse
from core.rules.evaluator.analysis.chunks import Chunk, Placed

__all__ = ["OWNER", "cache_size", "claim", "clear_cache", "cut_points", "parse_document", "shift_error"]

# A line that may start a new top-level statement (see module docstring). The first pattern is the fast one
# for text without carriage returns: it starts with a literal, which `re` searches for quickly.
CUT_LF = re.compile(r"\n(?![\s#)\]}])(?!(?:else|elif|except|finally)\b)")
CUT = re.compile(r"(?:\r\n|\r|\n)(?![\s#)\]}])(?!(?:else|elif|except|finally)\b)")

MAX_CHUNKS = 2048
MAX_CHARS = 4_000_000
MAX_FAILED = 512
MAX_WHOLE = 4


# -- cache ---------------------------------------------------------------------------------------------------

_LOCK = threading.RLock()
_CHUNKS: OrderedDict[tuple[str, int], Chunk] = OrderedDict()
_CHARS = [0]
_FAILED: OrderedDict[str, SyntaxError | ValueError] = OrderedDict()
_WHOLE: OrderedDict[str, list[Placed] | SyntaxError | ValueError] = OrderedDict()
# id(node) -> the cached chunk holding it (nodes stay alive while cached), for the chunks `claim`ed: a
# document asks which chunk holds a node of few chunks, and entering every node of every new chunk cost more
# than the asking saves.
OWNER: dict[int, Chunk] = {}
_CACHED: set[int] = set()  # ids of the cached chunks (only they may enter OWNER: their nodes stay alive)
_CLAIMED: set[int] = set()  # ids of the cached chunks whose nodes are in OWNER


def clear_cache() -> None:
    """Forget every parsed chunk (tests compare an incremental lint with a cold one)."""
    with _LOCK:
        _CHUNKS.clear()
        _FAILED.clear()
        _WHOLE.clear()
        _RECENT.clear()
        OWNER.clear()
        _CACHED.clear()
        _CLAIMED.clear()
        _CHARS[0] = 0


def cache_size() -> int:
    return len(_CHUNKS)


def claim(chunk: Chunk) -> None:
    """Enter a cached chunk's nodes in OWNER: called when a document first looks for one of them."""
    with _LOCK:
        key = id(chunk)
        if key in _CACHED and key not in _CLAIMED:
            _CLAIMED.add(key)
            OWNER.update(dict.fromkeys(chunk.ids, chunk))


def _cached_chunk(text: str, occurrence: int) -> Chunk | SyntaxError | ValueError:
    key = (text, occurrence)
    with _LOCK:
        chunk = _CHUNKS.get(key)
        if chunk is not None:
            _CHUNKS.move_to_end(key)
            return chunk
        failed = _FAILED.get(text)
        if failed is not None:
            return failed
    parsed = parse(text)
    with _LOCK:
        if not isinstance(parsed, ast.Module):
            _FAILED[text] = parsed
            while len(_FAILED) > MAX_FAILED:
                _FAILED.popitem(last=False)
            return parsed
        chunk = _CHUNKS.get(key)
        if chunk is not None:  # another thread was faster
            return chunk
        chunk = Chunk(text, parsed)
        _CHUNKS[key] = chunk
        _CHARS[0] += len(text)
        _CACHED.add(id(chunk))
        while len(_CHUNKS) > MAX_CHUNKS or (_CHARS[0] > MAX_CHARS and len(_CHUNKS) > 1):
            _, old = _CHUNKS.popitem(last=False)
            _CHARS[0] -= len(old.text)
            _CACHED.discard(id(old))
            if id(old) in _CLAIMED:
                _CLAIMED.discard(id(old))
                for node_id in old.ids:
                    if OWNER.get(node_id) is old:
                        del OWNER[node_id]
        return chunk


def _whole(text: str) -> list[Placed] | SyntaxError | ValueError:
    with _LOCK:
        cached = _WHOLE.get(text)
        if cached is not None:
            _WHOLE.move_to_end(text)
            return cached
    parsed = parse(text)
    result: list[Placed] | SyntaxError | ValueError
    if isinstance(parsed, ast.Module):
        chunk = Chunk(text, parsed)  # not registered as an owner: contexts fall back to their own chunks
        result = [Placed(chunk, 0)]
    else:
        result = parsed
    with _LOCK:
        _WHOLE[text] = result
        while len(_WHOLE) > MAX_WHOLE:
            _WHOLE.popitem(last=False)
    return result


def _count_lines(text: str, start: int, end: int, carriage_returns: bool) -> int:
    newlines = text.count("\n", start, end)
    if carriage_returns:
        newlines += text.count("\r", start, end) - text.count("\r\n", start, end)
    return newlines


def cut_points(text: str) -> list[int]:
    """Offsets where a chunk may start (see module docstring); decorators stay with what they decorate."""
    return list(_iter_points(text, 0))


def _iter_points(text: str, start: int) -> Iterator[int]:
    """`cut_points` of the text from offset `start` on, where a chunk starts (`start` first), lazily."""
    yield start
    previous_decorator = text.startswith("@", start)
    for match in (CUT if "\r" in text else CUT_LF).finditer(text, start):
        at = match.end()
        if at == len(text):
            return
        decorator = text.startswith("@", at)
        if not previous_decorator:
            yield at
        previous_decorator = decorator


@dataclass
class _Parsed:
    """A document as it was parsed last: where each chunk starts and the merge budget left at that point
    (and after the last chunk: a chunk whose budget is still that had no merge from there on)."""

    text: str
    placed: list[Placed]
    starts: list[int]
    budgets: list[int]
    end_budget: int


_RECENT: list[_Parsed] = []  # the last few documents parsed, newest first
MAX_RECENT = 8
_SAME_CUT = 9  # a cut is decided by the line break before it and at most 8 characters after ("finally" + 1)


def _budget(text: str) -> int:
    return len(text) // 4 + 4096  # characters we may re-parse while merging before parsing the whole file


class _Cutter:
    """Cuts and parses chunks from offset `start` on exactly as a parse of the whole text from scratch does
    (the same cuts, merges of pieces that do not parse on their own, and merge budget)."""

    def __init__(self, text: str, start: int, line: int, budget: int, seen: dict[str, int]) -> None:
        self.text, self.line, self.budget, self.seen = text, line, budget, seen
        self.placed: list[Placed] = []
        self.starts: list[int] = []
        self.budgets: list[int] = []  # merge budget left where each chunk starts
        self.resumed_at: int | None = None
        self.error: SyntaxError | ValueError | None = None  # the whole text's parse error, when found
        self._iter = _iter_points(text, start)
        self._points: list[int] = []
        self._done = False

    def _point(self, index: int) -> int | None:
        """The `index`-th piece boundary: the cut points, then the end of the text, then None."""
        while len(self._points) <= index:
            if self._done:
                return None
            point = next(self._iter, None)
            if point is None:
                self._done = True
                point = len(self.text)
            self._points.append(point)
        return self._points[index]

    def run(
        self, resume: Mapping[int, int] | None = None, budgets: Sequence[int] = (), end_budget: int = 0
    ) -> bool:
        """Cut to the end, or until a chunk start in `resume` (offset -> index of an earlier parse's chunk
        starting there) where at least that parse's budget is left, or where that parse merged nothing up
        to its end (`end_budget` left: then no budget can cut the rest differently); False when the text
        does not parse or the whole file has to be parsed (a piece no merge within the budget makes parse)."""
        text, carriage_returns = self.text, "\r" in self.text
        index = 0
        while (end := self._point(index + 1)) is not None:
            start = self._points[index]
            if resume:
                at = resume.get(start)
                if at is not None and (self.budget >= budgets[at] or budgets[at] == end_budget):
                    self.resumed_at = at
                    return True
            budget_before = self.budget
            index += 1
            piece = text[start:end]
            occurrence = self.seen.get(piece, 0)
            chunk = _cached_chunk(piece, occurrence)
            if not isinstance(chunk, Chunk) and self._fails_from(start):
                return False
            while not isinstance(chunk, Chunk):
                following = self._point(index + 1)
                if following is None or self.budget <= 0:
                    return False
                end = following
                index += 1
                piece = text[start:end]
                self.budget -= len(piece)
                occurrence = self.seen.get(piece, 0)
                chunk = _cached_chunk(piece, occurrence)
            self.seen[piece] = occurrence + 1
            self.placed.append(Placed(chunk, self.line))
            self.starts.append(start)
            self.budgets.append(budget_before)
            self.line += _count_lines(text, start, end, carriage_returns)
        return True

    def _fails_from(self, start: int) -> bool:
        """Whether the text from `start` (a chunk start: every chunk before it parsed) fails to parse; its
        error is then the whole text's (`error`, shifted to document lines). Merging the failing piece
        with what follows cannot help then, and parsing the whole text again is not needed."""
        head = self.text[:start]
        if "__future__" in head:  # a future import (barry_as_FLUFL) can change how the rest parses
            return False
        found = _suffix_error(self.text[start:])
        if found is None:
            return False
        self.error = shift_error(found, _count_lines(self.text, 0, start, "\r" in self.text))
        return True


_DETECTED_AT = re.compile(r"(?<=\bline )(\d+)")


def _suffix_error(text: str) -> SyntaxError | ValueError | None:
    with _LOCK:
        failed = _FAILED.get(text)
    if failed is not None:
        return failed
    parsed = parse(text)
    if isinstance(parsed, ast.Module):
        return None
    with _LOCK:
        _FAILED[text] = parsed
        while len(_FAILED) > MAX_FAILED:
            _FAILED.popitem(last=False)
    return parsed


def shift_error(error: SyntaxError | ValueError, lines: int) -> SyntaxError | ValueError:
    """The parse error of a text that starts `lines` lines into the document, in document lines (the line
    numbers CPython writes into messages such as "'(' on line 3" or "(detected at line 9)" too)."""
    if not lines or not isinstance(error, SyntaxError):
        return error
    msg = _DETECTED_AT.sub(lambda m: str(int(m.group(1)) + lines), error.msg)
    lineno = error.lineno + lines if error.lineno else error.lineno
    end_lineno = error.end_lineno + lines if error.end_lineno else error.end_lineno
    shifted = SyntaxError(
        msg, (error.filename, lineno, error.offset, error.text, end_lineno, error.end_offset)
    )
    return shifted


def _common_prefix(a: str, b: str) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:  # slices compare in C; the halving keeps the copying linear
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid : len(a) - low] == b[len(b) - mid : len(b) - low]:
            low = mid
        else:
            high = mid - 1
    return low


def _closest(text: str) -> tuple[_Parsed, int, int] | None:
    """The recent parse sharing the longest head and tail with `text`, with those lengths."""
    best: tuple[_Parsed, int, int] | None = None
    with _LOCK:
        recent = list(_RECENT)
    for parsed in recent:
        old = parsed.text
        prefix = _common_prefix(old, text)
        suffix = _common_suffix(old, text, min(len(old), len(text)) - prefix)
        if best is None or prefix + suffix > best[1] + best[2]:
            best = (parsed, prefix, suffix)
        if prefix + suffix >= len(text) - 64:
            break
    if best is None or 2 * (best[1] + best[2]) < len(text):
        return None
    return best


def _remember(parsed: _Parsed, replaces: _Parsed | None) -> None:
    with _LOCK:
        if replaces is not None and replaces in _RECENT:
            _RECENT.remove(replaces)
        _RECENT.insert(0, parsed)
        del _RECENT[MAX_RECENT:]


def _reparse(text: str, old: _Parsed, prefix: int, suffix: int) -> _Parsed | SyntaxError | ValueError | None:
    """`text` parsed from an earlier parse of a text that shares its first `prefix` and last `suffix`
    characters: the chunks wholly inside the shared head are kept, the edited middle is cut and parsed as
    usual, and the old chunks take over again at the first chunk start inside the shared tail.

    The parse error when the text does not parse (found from the first piece that fails, see
    `_Cutter._fails_from`); None when that cannot give what a parse from scratch gives (the caller then
    parses from scratch): a merge budget that could run out differently, or one chunk placed twice.
    """
    ends = [*old.starts[1:], len(old.text)]
    keep = bisect.bisect_right(ends, prefix - _SAME_CUT)  # chunks whose text and following cut are unchanged
    if keep >= len(old.placed):
        return None
    shift = _budget(text) - _budget(old.text)
    left = old.budgets[keep] + shift  # the budget left where chunk `keep` starts, for `text`
    if left <= 0:
        return None
    seen: dict[str, int] = {}
    for kept in old.placed[:keep]:
        seen[kept.chunk.text] = seen.get(kept.chunk.text, 0) + 1
    delta = len(text) - len(old.text)
    changed_end = len(old.text) - suffix  # the old text is unchanged from here on
    resume = {
        old.starts[j] + delta: j for j in range(keep + 1, len(old.placed)) if old.starts[j] - 1 >= changed_end
    }
    cutter = _Cutter(text, old.starts[keep], old.placed[keep].line, left, seen)
    if not cutter.run(resume, old.budgets, old.end_budget):
        return cutter.error
    placed = old.placed[:keep] + cutter.placed
    starts = old.starts[:keep] + cutter.starts
    budgets = [b + shift for b in old.budgets[:keep]] + cutter.budgets
    end_budget = cutter.budget
    at = cutter.resumed_at
    if at is not None:
        end_budget = old.end_budget + cutter.budget - old.budgets[at]
        lines = cutter.line - old.placed[at].line
        tail = old.placed[at:]
        placed += tail if not lines else [Placed(p.chunk, p.line + lines) for p in tail]
        starts += [s + delta for s in old.starts[at:]]
        budgets += [b + cutter.budget - old.budgets[at] for b in old.budgets[at:]]
    if len({id(p.chunk) for p in placed}) != len(placed):
        return None
    return _Parsed(text, placed, starts, budgets, end_budget)


def parse_document(text: str) -> list[Placed] | SyntaxError | ValueError:
    """The document as placed chunks, or the whole-file parse error (exactly what `ast.parse` reports).

    An edit of a recently parsed document is cut and parsed again only around the edit (`_reparse`).
    """
    if "\x00" in text:
        return _whole(text)
    base = _closest(text) if text else None
    if base is not None:
        parsed = _reparse(text, *base)
        if isinstance(parsed, SyntaxError | ValueError):
            return parsed
        if parsed is not None:
            _remember(parsed, base[0])
            return parsed.placed
    cutter = _Cutter(text, 0, 0, _budget(text), {})
    if not cutter.run():
        return cutter.error or _whole(text)
    parsed = _Parsed(text, cutter.placed, cutter.starts, cutter.budgets, cutter.budget)
    _remember(parsed, base[0] if base else None)
    return cutter.placed
