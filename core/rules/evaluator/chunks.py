"""Parse a Python document as top-level statement chunks, each parsed and indexed once (editor speed, SPEC §11).

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
import re
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass

from core.diagnostics import byte_col_to_char

LINE_BREAK = re.compile(r"\r\n|\r|\n")
# A line that may start a new top-level statement (see module docstring). The first pattern is the fast one
# for text without carriage returns: it starts with a literal, which `re` searches for quickly.
CUT_LF = re.compile(r"\n(?![\s#)\]}])(?!(?:else|elif|except|finally)\b)")
CUT = re.compile(r"(?:\r\n|\r|\n)(?![\s#)\]}])(?!(?:else|elif|except|finally)\b)")

MAX_CHUNKS = 2048
MAX_CHARS = 4_000_000
MAX_FAILED = 512
MAX_WHOLE = 4

_SKIP_FIELDS = frozenset({"ctx", "op", "ops", "type_ignores"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def split_lines(text: str) -> list[str]:
    """Lines exactly as the tokenizer counts them (`str.splitlines` also splits on form feeds)."""
    return LINE_BREAK.split(text)


def children(node: ast.AST) -> list[ast.AST]:
    """Child nodes like `ast.iter_child_nodes`, minus contexts and operators, and faster (fields cached per type)."""
    cls = type(node)
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in _SKIP_FIELDS)
    out: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(item for item in value if isinstance(item, ast.AST))
    return out


def parse(text: str) -> ast.Module | SyntaxError | ValueError:
    """The module, or the error that stops it from parsing (warnings such as bad escapes are ignored)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError) as exc:
        return ValueError(str(exc) or type(exc).__name__)


class Chunk:
    """One parsed piece of a document and everything about it that needs no other piece (one indexed pass).

    Positions inside are relative to the chunk (line 1 is the chunk's first line). Which document and
    line the chunk sits at is the caller's business (`Placed`).
    """

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.tree = tree
        self.body = tree.body
        self.lines = split_lines(text)
        self._ascii: list[bool | None] = [None] * len(self.lines)
        self.top_level = {id(stmt) for stmt in tree.body}
        self.parents: dict[ast.AST, ast.AST] = {}
        self.kids: dict[int, list[ast.AST]] = {}
        self.nodes: list[ast.AST] = []
        self.calls: list[ast.Call] = []
        self.call_index: dict[int, int] = {}
        self.method_calls: dict[str, list[ast.Call]] = {}  # calls of `x.attr(...)` by attr
        self.star_kwarg_calls: list[ast.Call] = []  # calls with a `**mapping` argument
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.handlers: list[ast.ExceptHandler] = []
        self.strings: list[ast.Constant] = []
        self.strings_by_value: dict[str, list[ast.Constant]] = {}
        self.name_loads: dict[str, list[ast.Name]] = {}
        self.attribute_loads: dict[str, list[ast.Attribute]] = {}
        self.bound_names: set[str] = set()
        self.assigned: dict[str, list[ast.expr]] = {}
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.classes: list[ast.ClassDef] = []
        self.with_bindings: dict[str, ast.expr] = {}
        self.key_adders: dict[str, list[ast.AST]] = {}
        self.fast_parameter = False  # a function with a `fast` parameter (typer/fire options)
        self.results: dict[object, object] = {}  # per-chunk rule results, keyed by lint settings
        self._index()
        self.ids = self.kids  # id(node) -> children, for every node: doubles as the membership test

    def _index(self) -> None:
        stack: list[ast.AST] = list(reversed(self.tree.body))
        parents, kids, nodes = self.parents, self.kids, self.nodes
        while stack:
            node = stack.pop()
            nodes.append(node)
            node_kids = children(node)
            kids[id(node)] = node_kids
            for child in node_kids:
                parents[child] = node
            stack.extend(reversed(node_kids))
            if isinstance(node, ast.Call):
                self.call_index[id(node)] = len(self.calls)
                self.calls.append(node)
                func = node.func
                if isinstance(func, ast.Attribute):
                    self.method_calls.setdefault(func.attr, []).append(node)
                if any(kw.arg is None for kw in node.keywords):
                    self.star_kwarg_calls.append(node)
                if (
                    isinstance(func, ast.Attribute)
                    and func.attr in ("update", "setdefault")
                    and isinstance(func.value, ast.Name)
                ):
                    self.key_adders.setdefault(func.value.id, []).append(node)
            elif isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    self.name_loads.setdefault(node.id, []).append(node)
                else:
                    self.bound_names.add(node.id)
            elif isinstance(node, ast.Attribute):
                if isinstance(node.ctx, ast.Load):
                    self.attribute_loads.setdefault(node.attr, []).append(node)
            elif isinstance(node, ast.Constant):
                if isinstance(node.value, str):
                    self.strings.append(node)
                    self.strings_by_value.setdefault(node.value, []).append(node)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                self.imports.append(node)
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if not isinstance(node, ast.AugAssign):
                    for target in targets:
                        if isinstance(target, ast.Name) and node.value is not None:
                            self.assigned.setdefault(target.id, []).append(node.value)
                subscripted = {
                    t.value.id
                    for t in targets
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                }
                for name in sorted(subscripted):
                    self.key_adders.setdefault(name, []).append(node)
            elif isinstance(node, ast.NamedExpr):
                if isinstance(node.target, ast.Name):
                    self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.bound_names.add(node.name)
                if any(a.arg == "fast" for a in (*node.args.args, *node.args.kwonlyargs)):
                    self.fast_parameter = True
            elif isinstance(node, ast.ClassDef):
                self.bound_names.add(node.name)
                self.classes.append(node)
            elif isinstance(node, ast.ExceptHandler):
                self.handlers.append(node)
            elif isinstance(node, ast.With | ast.AsyncWith):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name):
                        self.with_bindings.setdefault(item.optional_vars.id, item.context_expr)
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.append(stmt)
        # The top-level statements the execution-order walk (flow.py) can learn anything from: a plain
        # `def` (no decorators, no calls in its defaults) contributes no steps where it is defined.
        self.flow_body: list[ast.stmt] = [
            s
            for s in self.tree.body
            if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
            or s.decorator_list
            or any(
                isinstance(n, ast.Call)
                for d in (*s.args.defaults, *s.args.kw_defaults)
                if d
                for n in ast.walk(d)
            )
        ]
        self.imports.sort(key=lambda n: (n.lineno, n.col_offset))

    # -- positions (relative to the chunk) -------------------------------------------------------------

    def char_col(self, lineno: int, byte_col: int) -> int:
        """Code-point column for a 1-based chunk line and a UTF-8 byte column."""
        index = lineno - 1
        if not 0 <= index < len(self.lines):
            return byte_col
        ascii_line = self._ascii[index]
        if ascii_line is None:
            ascii_line = self._ascii[index] = self.lines[index].isascii()
        return byte_col if ascii_line else byte_col_to_char(self.lines[index], byte_col)

    def start(self, node: ast.AST) -> tuple[int, int]:
        """Zero-based (line, character) of the node's start, relative to the chunk."""
        lineno: int = getattr(node, "lineno", 1)
        return lineno - 1, self.char_col(lineno, getattr(node, "col_offset", 0))

    def end(self, node: ast.AST) -> tuple[int, int]:
        end_line: int | None = getattr(node, "end_lineno", None)
        lineno: int = end_line if end_line is not None else getattr(node, "lineno", 1)
        end_col: int | None = getattr(node, "end_col_offset", None)
        col: int = end_col if end_col is not None else getattr(node, "col_offset", 0)
        return lineno - 1, self.char_col(lineno, col)

    def source_of(self, node: ast.AST) -> str:
        (start_line, start_char), (end_line, end_char) = self.start(node), self.end(node)
        if start_line == end_line:
            return self.lines[start_line][start_char:end_char]
        parts = [self.lines[start_line][start_char:]]
        parts.extend(self.lines[start_line + 1 : end_line])
        parts.append(self.lines[end_line][:end_char])
        return "\n".join(parts)


@dataclass(frozen=True)
class Placed:
    """A chunk at its place in one document: `line` is the zero-based document line of the chunk's line 1."""

    chunk: Chunk
    line: int


# -- cache ---------------------------------------------------------------------------------------------------

_LOCK = threading.RLock()
_CHUNKS: OrderedDict[tuple[str, int], Chunk] = OrderedDict()
_CHARS = [0]
_FAILED: OrderedDict[str, SyntaxError | ValueError] = OrderedDict()
_WHOLE: OrderedDict[str, list[Placed] | SyntaxError | ValueError] = OrderedDict()
OWNER: dict[int, Chunk] = {}  # id(node) -> the cached chunk holding it (nodes stay alive while cached)


def clear_cache() -> None:
    """Forget every parsed chunk (tests compare an incremental lint with a cold one)."""
    with _LOCK:
        _CHUNKS.clear()
        _FAILED.clear()
        _WHOLE.clear()
        OWNER.clear()
        _CHARS[0] = 0


def cache_size() -> int:
    return len(_CHUNKS)


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
        OWNER.update(dict.fromkeys(chunk.ids, chunk))
        while len(_CHUNKS) > MAX_CHUNKS or (_CHARS[0] > MAX_CHARS and len(_CHUNKS) > 1):
            _, old = _CHUNKS.popitem(last=False)
            _CHARS[0] -= len(old.text)
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
    points = [0]
    previous_decorator = text.startswith("@")
    for match in (CUT if "\r" in text else CUT_LF).finditer(text):
        at = match.end()
        if at == len(text):
            break
        decorator = text.startswith("@", at)
        if not previous_decorator:
            points.append(at)
        previous_decorator = decorator
    return points


def parse_document(text: str) -> list[Placed] | SyntaxError | ValueError:
    """The document as placed chunks, or the whole-file parse error (exactly what `ast.parse` reports)."""
    if "\x00" in text:
        return _whole(text)
    points = cut_points(text)
    points.append(len(text))
    placed: list[Placed] = []
    seen: dict[str, int] = {}
    line = 0
    carriage_returns = "\r" in text
    budget = len(text) // 4 + 4096  # characters we may re-parse while merging before parsing the whole file
    index = 0
    while index < len(points) - 1:
        start, end = points[index], points[index + 1]
        index += 1
        piece = text[start:end]
        occurrence = seen.get(piece, 0)
        chunk = _cached_chunk(piece, occurrence)
        while not isinstance(chunk, Chunk):
            if index >= len(points) - 1 or budget <= 0:
                return _whole(text)
            end = points[index + 1]
            index += 1
            piece = text[start:end]
            budget -= len(piece)
            occurrence = seen.get(piece, 0)
            chunk = _cached_chunk(piece, occurrence)
        seen[piece] = occurrence + 1
        placed.append(Placed(chunk, line))
        line += _count_lines(text, start, end, carriage_returns)
    return placed
