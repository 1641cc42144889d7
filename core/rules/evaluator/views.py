"""Views of a document that record every whole-file lookup they make, and the per-chunk passes that use them.

A `ChunkView` is one chunk as the per-chunk rules see it: an `EvaluatorContext` composed of the chunk's own
nodes and text (positions relative to the chunk) and a store that reads whole-file facts from the document
and records each answer, so its result can be reused for an unchanged chunk while every recorded lookup
still gives the same answer (`run_chunk_passes`). A `DocumentView` is the whole document with its lookups
recorded, for analyses reused across lints (the execution-order walk, `flow.FlowSource`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from core.rules.base import LintContext
from core.rules.evaluator.analysis.chunk_results import (
    ALWAYS_CHECKED,
    WIDE_KINDS,
    ChunkResult,
    Previous,
    previous_lint,
    remember_lint,
)
from core.rules.evaluator.analysis.chunks import Chunk
from core.rules.evaluator.analysis.lookup_store import RecordingStore
from core.rules.evaluator.analysis.names import NameResolver
from core.rules.evaluator.analysis.node_lists import ChunkNodes
from core.rules.evaluator.analysis.recorded import Lookup, RecordedTables
from core.rules.evaluator.analysis.source_text import ChunkText
from core.rules.evaluator.analysis.tables import FunctionNode
from core.rules.evaluator.context import EvaluatorContext

__all__ = ["CHANGES", "Changes", "ChunkView", "DocumentView", "run_chunk_passes"]


class ChunkView:
    """One chunk of `root` as the per-chunk rules see it (`context`), and what it read (`reads`)."""

    def __init__(self, root: EvaluatorContext, chunk: Chunk) -> None:
        self.root = root
        self.chunk = chunk
        self._store = RecordingStore(root.store)
        lint = root.lint
        if lint.workspace is not None or lint.exists is not None:
            lint = LintContext(
                config=lint.config, workspace=lint.workspace, read_file=lint.read_file, exists=self._exists
            )
        self.context = EvaluatorContext(
            root.kind,
            lint,
            ChunkText(root.source, chunk, self._store),
            RecordedTables(self._store),
            ChunkNodes(chunk),
            self._store,
        )

    @property
    def reads(self) -> dict[Lookup, object]:
        return self._store.reads

    def _exists(self, relpath: str) -> bool:
        return self._store.read(Lookup("exists", relpath)) is True


class DocumentView:
    """The whole document with every whole-file lookup recorded, for analyses reused across lints (flow)."""

    def __init__(self, root: EvaluatorContext) -> None:
        self._store = RecordingStore(root.store)
        self._tables = RecordedTables(self._store)
        self._names = NameResolver(self._tables, root.source, self._store, root.chunk_nodes)
        self._root = root
        self.aliases: Mapping[str, str] = self._tables.aliases
        self.functions: Mapping[str, FunctionNode] = self._tables.functions
        self.classes: Mapping[str, ast.ClassDef] = self._tables.classes
        self.methods: Mapping[str, Sequence[FunctionNode]] = self._tables.methods
        self.name_loads: Mapping[str, Sequence[ast.Name]] = self._tables.name_loads
        self.kids: Mapping[int, list[ast.AST]] = root.kids
        self.memo: dict[str, object] = {}

    @property
    def reads(self) -> dict[Lookup, object]:
        return self._store.reads

    def flow_body(self) -> Sequence[ast.stmt]:
        return self._tables.flow_body()

    def qualname(self, expr: ast.AST) -> str | None:
        return self._names.qualname(expr)

    def call_name(self, call: ast.Call) -> str | None:
        return self._names.qualname(call.func)

    def local_function(self, call: ast.Call) -> FunctionNode | None:
        return self._names.local_function(call)

    def chunk_of(self, node: ast.AST) -> Chunk | None:
        return self._root.source.chunk_of(node)


def run_chunk_passes(
    ctx: EvaluatorContext, key: object, run: Callable[[ChunkView], ChunkResult]
) -> list[ChunkResult]:
    """Each chunk's result for these lint settings: reused when its recorded lookups still hold.

    Against the last lint of this document (same `key`), only lookups that the added and removed
    chunks take part in can have changed answer, so a chunk kept from that lint whose lookups avoid
    them keeps its result without asking anything again; the others are checked one lookup at a time.
    """
    previous = previous_lint(key)
    chunks = [p.chunk for p in ctx.placed]
    ids = [id(chunk) for chunk in chunks]
    dirty, dirty_kinds = _changes_since(chunks, ids, previous)
    kept = previous.results if previous is not None and dirty is not None else {}
    results: list[ChunkResult] = []
    for chunk, chunk_id in zip(chunks, ids, strict=True):
        entry = kept.get(chunk_id)
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
    ctx.store.chunk_results = results
    state = Previous(ids, {i: (c, r) for i, c, r in zip(ids, chunks, results, strict=True)})
    remember_lint(key, state)
    ctx.memo[CHANGES] = Changes(previous, state, dirty, dirty_kinds)
    return results


CHANGES = "changes"  # the `EvaluatorContext.memo` key of this lint's `Changes`


@dataclass(frozen=True)
class Changes:
    """What this lint's chunk passes found changed since the last lint of the document (`since`): the
    lookups whose answer may differ (`dirty`, `kinds`; None: anything may). An analysis whose lookups held
    in the document of `since` (the state that lint remembered) need only ask those again; `now` is the
    state this lint remembered, for the next lint to compare with."""

    since: Previous | None
    now: Previous
    dirty: set[tuple[str, str]] | None
    kinds: frozenset[str]

    def suspects(self, since: object, reads: Mapping[Lookup, object]) -> Mapping[Lookup, object]:
        """The lookups of `reads` (all of which held in the document of `since`) that may not hold now."""
        dirty = self.dirty
        if since is None or since is not self.since or dirty is None:
            return reads
        kinds = self.kinds
        return {read: value for read, value in reads.items() if read.kind in kinds or read.subject in dirty}


def _changes_since(
    chunks: list[Chunk], ids: list[int], previous: Previous | None
) -> tuple[set[tuple[str, str]] | None, frozenset[str]]:
    """The lookups (and kinds of lookup) whose answer may differ from `previous`'s document, whose chunks
    `chunks` (with their `ids`) now are; None when the two cannot be compared chunk by chunk (no previous
    lint, or chunks in another order)."""
    if previous is None:
        return None, frozenset()
    if previous.order == ids:
        return set(), ALWAYS_CHECKED  # the same chunks, in the same order
    before = previous.results
    now = dict(zip(ids, chunks, strict=True))
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
