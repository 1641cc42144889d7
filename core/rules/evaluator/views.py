"""Views of a document that record every whole-file lookup they make, and the per-chunk passes that use them.

A `ChunkView` is one chunk as the per-chunk rules see it: its own nodes, positions relative to the chunk, and
whole-file facts only through recorded lookups, so its result can be reused for an unchanged chunk while
every recorded lookup still gives the same answer (`run_chunk_passes`). A `DocumentView` is the whole
document with its lookups recorded, for analyses reused across lints (the execution-order walk).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Sequence

from core.diagnostics import Position, Range
from core.errors import ForeignNodeError
from core.rules.base import LintContext
from core.rules.evaluator.analysis.chunk_results import (
    ALWAYS_CHECKED,
    WIDE_KINDS,
    ChunkResult,
    Previous,
    previous_lint,
    remember_lint,
)
from core.rules.evaluator.analysis.chunks import Chunk, Placed
from core.rules.evaluator.analysis.recorded import FACT, Lookup, Recorded, RecordedNames
from core.rules.evaluator.context import EvaluatorContext

__all__ = ["ChunkView", "DocumentView", "record_whole_file_lookups", "run_chunk_passes"]


class _ViewParents(Mapping[ast.AST, ast.AST]):
    """Parents inside the chunk; the module and other chunks' nodes through the document (recorded)."""

    def __init__(self, view: ChunkView) -> None:
        self._view = view
        self._chunk = view.chunk

    def get(self, node: ast.AST, default: ast.AST | None = None) -> ast.AST | None:  # type: ignore[override]
        parent = self._chunk.parents.get(node)
        if parent is not None:
            return parent
        root = self._view.root
        found = root.parents.get(node)
        if found is root.tree:
            self._view.read(Lookup("module"))
        return found if found is not None else default

    def __getitem__(self, node: ast.AST) -> ast.AST:
        parent = self.get(node)
        if parent is None:
            raise KeyError(node)
        return parent

    def __iter__(self) -> Iterator[ast.AST]:
        return iter(self._chunk.parents)

    def __len__(self) -> int:
        return len(self._chunk.parents)


def record_whole_file_lookups(view: ChunkView | DocumentView) -> None:
    """Whole-file tables a view reads through recorded lookups, so a cached result knows what it depended on."""
    view.bound_names = RecordedNames(view)
    view.assigned = Recorded(view, "assigned", "assigned")
    view.functions = Recorded(view, "function", "functions")
    view.classes = Recorded(view, "class", "classes")
    view.methods = Recorded(view, "methods", "methods")
    view.aliases = Recorded(view, "alias", "aliases")
    view.top_aliases = Recorded(view, "top_alias", "top_aliases")
    view.name_loads = Recorded(view, "name_loads", "name_loads")
    view.attribute_loads = Recorded(view, "attribute_loads", "attribute_loads")


class ChunkView(EvaluatorContext):
    """One chunk as the per-chunk rules see it (see module docstring)."""

    def __init__(self, root: EvaluatorContext, chunk: Chunk) -> None:
        self.root = root
        self.chunk = chunk
        self.relpath = root.relpath
        self.text = root.text
        self.kind = root.kind
        self.lint = root.lint
        self.placed = [Placed(chunk, 0)]
        self.offsets = {id(chunk): 0}
        self.tree = root.tree
        self.suite = root.suite
        self.data_dir = root.data_dir
        self._qualnames = {}
        self.memo = {}
        self.chunk_results = None
        self._answers = {}
        self.reads: dict[Lookup, object] = {}
        self.parents = _ViewParents(self)
        self.kids = chunk.kids
        record_whole_file_lookups(self)
        if root.lint.workspace is not None or root.lint.exists is not None:
            self.lint = LintContext(
                config=root.lint.config,
                workspace=root.lint.workspace,
                read_file=root.lint.read_file,
                exists=self._exists,
            )
        # The chunk's own node lists (cached properties on the document context).
        self.__dict__["calls"] = chunk.calls
        self.__dict__["nodes"] = chunk.nodes
        self.__dict__["imports"] = chunk.imports
        self.__dict__["handlers"] = chunk.handlers
        self.__dict__["strings"] = chunk.strings
        self.__dict__["lines"] = chunk.lines

    def read(self, lookup: Lookup) -> object:
        value = self.root.answer(lookup)
        self.reads[lookup] = value
        return value

    def _exists(self, relpath: str) -> bool:
        return self.read(Lookup("exists", relpath)) is True

    def string_nodes(self, value: str) -> Sequence[ast.Constant]:
        found = self.read(Lookup("strings", value))
        assert isinstance(found, tuple)
        return found

    def key_adders(self, name: str) -> Sequence[ast.AST]:
        found = self.read(Lookup("key_adders", name))
        assert isinstance(found, tuple)
        return found

    def has_fast_parameter(self) -> bool:
        return self.read(Lookup("fast_parameter")) is True

    def fact(self, name: str, key: str) -> object:
        return self.read(Lookup(FACT, key, name))

    def enclosing(self, node: ast.AST, *types: type[ast.AST]) -> ast.AST | None:
        """As for the document, but a walk that stays inside the chunk records nothing: only a walk that
        can stop at the module (the parent of every top-level statement) depends on the module's body."""
        if id(node) not in self.chunk.ids or any(issubclass(ast.Module, t) for t in types):
            return super().enclosing(node, *types)
        parents = self.chunk.parents
        current = parents.get(node)
        while current is not None and not isinstance(current, types):
            current = parents.get(current)
        return current

    def import_insert_line(self, before: ast.AST | None = None) -> int:
        raise ForeignNodeError("per-chunk rules cannot place whole-file edits")

    def chunk_of(self, node: ast.AST) -> Chunk | None:
        if id(node) in self.chunk.ids:
            return self.chunk
        return self.root.chunk_of(node)

    def start_of(self, node: ast.AST) -> Position:
        if id(node) not in self.chunk.ids:
            raise ForeignNodeError(f"{type(node).__name__} is not in this chunk")
        line, character = self.chunk.start(node)
        return Position(line, character)

    def end_of(self, node: ast.AST) -> Position:
        if id(node) not in self.chunk.ids:
            raise ForeignNodeError(f"{type(node).__name__} is not in this chunk")
        line, character = self.chunk.end(node)
        return Position(line, character)

    def file_range(self) -> Range:
        raise ForeignNodeError("per-chunk rules cannot report on the whole file")


class DocumentView(EvaluatorContext):
    """The whole document with every whole-file lookup recorded, for analyses reused across lints (flow)."""

    def __init__(self, root: EvaluatorContext) -> None:
        self.root = root
        self.relpath = root.relpath
        self.text = root.text
        self.kind = root.kind
        self.lint = root.lint
        self.placed = root.placed
        self.offsets = root.offsets
        self.tree = root.tree
        self.suite = root.suite
        self.data_dir = root.data_dir
        self._qualnames = {}
        self.memo = {}
        self.chunk_results = root.chunk_results
        self._answers = {}
        self.reads: dict[Lookup, object] = {}
        self.parents = root.parents
        self.kids = root.kids
        record_whole_file_lookups(self)

    def read(self, lookup: Lookup) -> object:
        value = self.root.answer(lookup)
        self.reads[lookup] = value
        return value

    def flow_body(self) -> Sequence[ast.stmt]:
        found = self.read(Lookup("flow_body"))
        assert isinstance(found, tuple)
        return found


def run_chunk_passes(
    ctx: EvaluatorContext, key: object, run: Callable[[ChunkView], ChunkResult]
) -> list[ChunkResult]:
    """Each chunk's result for these lint settings: reused when its recorded lookups still hold.

    Against the last lint of this document (same `key`), only lookups that the added and removed
    chunks take part in can have changed answer, so a chunk kept from that lint whose lookups avoid
    them keeps its result without asking anything again; the others are checked one lookup at a time.
    """
    previous = previous_lint(key)
    dirty, dirty_kinds = _changes_since(ctx, previous)
    kept = previous.results if previous is not None and dirty is not None else {}
    results: list[ChunkResult] = []
    for placed in ctx.placed:
        chunk = placed.chunk
        entry = kept.get(id(chunk))
        cached: ChunkResult | None = None
        if entry is not None:
            last = entry[1]
            if (
                dirty is not None and last.kinds.isdisjoint(dirty_kinds) and last.match_keys.isdisjoint(dirty)
            ) or ctx.still_valid(last):
                cached = last
        if cached is None:
            found = chunk.results.get(key)
            if isinstance(found, ChunkResult) and ctx.still_valid(found):
                cached = found
            else:
                cached = run(ChunkView(ctx, chunk))
                if len(chunk.results) >= 4:
                    chunk.results.clear()
                chunk.results[key] = cached
        results.append(cached)
    ctx.chunk_results = results
    state = Previous(
        [id(p.chunk) for p in ctx.placed],
        {id(p.chunk): (p.chunk, r) for p, r in zip(ctx.placed, results, strict=True)},
    )
    remember_lint(key, state)
    return results


def _changes_since(
    ctx: EvaluatorContext, previous: Previous | None
) -> tuple[set[tuple[str, str]] | None, frozenset[str]]:
    """The lookups (and kinds of lookup) whose answer may differ from `previous`'s document; None when
    the two cannot be compared chunk by chunk (no previous lint, or chunks in another order)."""
    if previous is None:
        return None, frozenset()
    before = previous.results
    now = {id(p.chunk): p.chunk for p in ctx.placed}
    if [i for i in previous.order if i in now] != [i for i in now if i in before]:
        return None, frozenset()
    changed = [c for i, c in now.items() if i not in before]
    changed.extend(before[i][0] for i in previous.order if i not in now)
    dirty: set[tuple[str, str]] = set()
    kinds = set(ALWAYS_CHECKED)
    if changed:
        kinds |= WIDE_KINDS
    for chunk in changed:
        dirty |= chunk.contributed
        if chunk.classes:
            kinds.add("methods")  # methods come from whichever class wins its name
        if chunk.fast_parameter:
            kinds.add("fast_parameter")
    return dirty, frozenset(kinds)
