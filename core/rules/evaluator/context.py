"""The API every evaluator rule calls, assembled from the analysis components in `analysis/`.

An `EvaluatorContext` is one parsed Python document of the suite, or one chunk of it as the per-chunk rules
see it (`views.ChunkView`). It holds, and delegates to:

- `source` (`analysis/source_text.py`): lines, exact positions (`ast` reports UTF-8 byte columns,
  diagnostics use code points), parent links and the edits a fix inserts;
- `names` (`analysis/names.py`): import aliases, builtins, local functions, bindings by scope;
- `tables` and `nodes` (`analysis/tables.py`): whole-file facts merged from the chunks, and the nodes of the
  chunks this context covers;
- `store` (`analysis/lookup_store.py`): the answers to whole-file lookups and registered facts. A chunk
  view's store records every answer it used, so its results can be reused for an unchanged chunk while
  every recorded lookup still gives the same answer.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Container, Iterator, Mapping, Sequence
from functools import cached_property, lru_cache
from pathlib import PurePosixPath
from types import ModuleType

from core.diagnostics import Diagnostic, Fix, Position, Range, TextEdit
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator.analysis.chunk_results import ChunkResult
from core.rules.evaluator.analysis.chunks import Chunk, Placed
from core.rules.evaluator.analysis.lookup_store import DocumentStore, Store
from core.rules.evaluator.analysis.names import NameResolver
from core.rules.evaluator.analysis.node_lists import DocumentNodes, Nodes
from core.rules.evaluator.analysis.recorded import Lookup
from core.rules.evaluator.analysis.scopes import Binding
from core.rules.evaluator.analysis.source_text import SourceText
from core.rules.evaluator.analysis.tables import FunctionNode, WholeFile, WholeFileTables, tables_after

__all__ = ["EvaluatorContext", "register_fact"]

# Whole-file facts computed on demand from other facts, by name: `fn(ctx, key)`. Rules register them so a
# chunk view can record the answer it used (see `EvaluatorContext.fact`).
_FACTS: dict[str, Callable[[EvaluatorContext, str], object]] = {}


def register_fact(name: str, compute: Callable[[EvaluatorContext, str], object]) -> None:
    _FACTS[name] = compute


class EvaluatorContext:
    """One Python document of the suite (or one chunk of it) plus the lookups the rules need."""

    def __init__(
        self,
        kind: DocumentKind,
        lint: LintContext,
        source: SourceText,
        tables: WholeFile,
        nodes: Nodes,
        store: Store,
    ) -> None:
        self.kind = kind
        self.lint = lint
        self.source = source
        self.tables = tables
        self.chunk_nodes = nodes
        self.store = store
        self.names = NameResolver(tables, source, store, nodes)
        self.relpath = source.relpath
        self.text = source.text
        self.tree = source.tree
        self.placed: Sequence[Placed] = source.placed
        self.parents: Mapping[ast.AST, ast.AST] = source.parents
        self.kids: Mapping[int, list[ast.AST]] = source.kids
        self.suite = _norm_dir(lint.config.evaluation_dir)
        self.data_dir = _norm_dir(lint.config.data_dir)
        self.memo: dict[str, object] = {}  # analyses shared by several rules (flow, metric print)
        self.bound_names: Container[str] = tables.bound_names
        self.assigned: Mapping[str, Sequence[ast.expr]] = tables.assigned
        self.functions: Mapping[str, FunctionNode] = tables.functions
        self.classes: Mapping[str, ast.ClassDef] = tables.classes
        self.methods: Mapping[str, Sequence[FunctionNode]] = tables.methods
        self.aliases: Mapping[str, str] = tables.aliases
        self.top_aliases: Mapping[str, str] = tables.top_aliases
        self.name_loads: Mapping[str, Sequence[ast.Name]] = tables.name_loads
        self.attribute_loads: Mapping[str, Sequence[ast.Attribute]] = tables.attribute_loads
        self._call_names: list[str | None] | None = None

    @classmethod
    def for_document(
        cls,
        relpath: str,
        text: str,
        kind: DocumentKind,
        lint: LintContext,
        tree: ast.Module | None = None,
        *,
        placed: Sequence[Placed] | None = None,
    ) -> EvaluatorContext:
        """The context of a whole document, from its placed chunks or (one chunk) its parsed tree."""
        if placed is None:
            if tree is None:
                raise ValueError("EvaluatorContext needs a tree or placed chunks")
            placed = [Placed(Chunk(text, tree), 0)]
            tables = WholeFileTables(placed)
        else:
            tables = tables_after(relpath, placed)
        if len(placed) == 1:
            tree = placed[0].chunk.tree
        else:
            tree = ast.Module(body=[s for p in placed for s in p.chunk.body], type_ignores=[])
        source = SourceText(relpath, text, placed, tree)
        nodes = DocumentNodes(placed, tree)

        def compute_fact(name: str, key: str) -> object:
            return _FACTS[name](context, key)

        store = DocumentStore(source, tables, nodes, lint.path_exists, compute_fact)
        context = cls(kind, lint, source, tables, nodes, store)
        return context

    # -- the nodes of this context's chunks ----------------------------------------------------------------

    @property
    def calls(self) -> list[ast.Call]:
        return self.chunk_nodes.calls

    @property
    def nodes(self) -> list[ast.AST]:
        """Every node, pre-order, the module first: rules scan this instead of re-walking."""
        return self.chunk_nodes.nodes

    @property
    def imports(self) -> list[ast.Import | ast.ImportFrom]:
        return self.chunk_nodes.imports

    @property
    def handlers(self) -> list[ast.ExceptHandler]:
        return self.chunk_nodes.handlers

    @property
    def strings(self) -> list[ast.Constant]:
        return self.chunk_nodes.strings

    def flow_body(self) -> Sequence[ast.stmt]:
        """The module's statements minus plain `def`s (see `Chunk.flow_body`)."""
        return self.chunk_nodes.flow_body()

    def method_calls(self, *attrs: str) -> list[ast.Call]:
        """Calls `x.attr(...)` for any of `attrs`, in document order (a syntactic pre-filter)."""
        return self.chunk_nodes.method_calls(*attrs)

    def star_kwarg_calls(self) -> list[ast.Call]:
        return self.chunk_nodes.star_kwarg_calls()

    def nodes_of(self, *kinds: type[ast.AST]) -> list[ast.AST]:
        """The nodes of exactly these types, grouped by kind in the order given (a rule that reports
        several kinds sorts what it found by `position` to keep pre-order)."""
        return self.chunk_nodes.nodes_of(*kinds)

    def position(self, node: ast.AST) -> int:
        """The node's index in `nodes` (pre-order)."""
        return self.chunk_nodes.position(node)

    @property
    def call_names(self) -> list[str | None]:
        """`call_name` of each of `calls`, in the same order: resolved once per context and shared by the
        rules and facts that look at every call (a chunk pass resolves every call's name anyway, for the
        calls by name, so it records the same lookups)."""
        names = self._call_names
        if names is None:
            qualname = self.names.qualname
            names = self._call_names = [qualname(call.func) for call in self.chunk_nodes.calls]
        return names

    # -- whole-file facts ----------------------------------------------------------------------------------

    def string_nodes(self, value: str) -> Sequence[ast.Constant]:
        """Every string constant equal to `value`."""
        return self.tables.string_nodes(value)

    def key_adders(self, name: str) -> Sequence[ast.AST]:
        """`name[...] = ...` assignments and `name.update(...)`/`name.setdefault(...)` calls, in order."""
        return self.tables.key_adders(name)

    def has_fast_parameter(self) -> bool:
        return self.tables.has_fast_parameter()

    def fact(self, name: str, key: str) -> object:
        """A registered whole-file fact (`register_fact`), memoized per lint."""
        return self.store.fact(name, key)

    def facts(self, name: str) -> list[object] | None:
        """The per-chunk facts `name` of every chunk, in order; None when the chunk passes have not run."""
        return self.store.facts(name)

    def still_valid(self, result: ChunkResult) -> bool:
        return self.store.reads_hold(result.reads)

    def reads_hold(self, reads: Mapping[Lookup, object]) -> bool:
        """Every recorded lookup still gives the recorded answer in this document."""
        return self.store.reads_hold(reads)

    # -- names ---------------------------------------------------------------------------------------------

    def qualname(self, expr: ast.AST) -> str | None:
        """`np.random.rand` -> `numpy.random.rand`; builtins keep their name; anything local is None."""
        return self.names.qualname(expr)

    def call_name(self, call: ast.Call) -> str | None:
        return self.names.qualname(call.func)

    def calls_to(self, qualnames: Collection[str]) -> Iterator[tuple[ast.Call, str]]:
        return self.names.calls_to(qualnames)

    def method_name(self, call: ast.Call) -> str | None:
        """The attribute called, for method calls on values we cannot resolve (`path.iterdir()`)."""
        return self.names.method_name(call)

    def is_wrapped_in(self, node: ast.AST, *funcs: str) -> bool:
        return self.names.is_wrapped_in(node, *funcs)

    def local_function(self, call: ast.Call) -> FunctionNode | None:
        return self.names.local_function(call)

    def bound_to(self, qualified: str) -> str | None:
        """A module-level name bound to the module `qualified` (`np` for numpy), if any."""
        return self.names.bound_to(qualified)

    def binding(self, use: ast.Name) -> Binding | None:
        """The binding a reader takes `use` to mean, by scope (see `NameResolver.binding`)."""
        return self.names.binding(use)

    def value_of(self, use: ast.AST) -> ast.expr | None:
        """The value assigned to the name `use` (`name = value`), by scope; None for anything else."""
        return self.names.value_of(use)

    def string_value(self, expr: ast.AST) -> str | None:
        """A string literal, or a name bound to one (by scope)."""
        return self.names.string_value(expr)

    def reaching(self, use: ast.Name) -> Sequence[Binding]:
        """Every binding whose value may reach `use` (see `NameResolver.reaching`)."""
        return self.names.reaching(use)

    # -- positions and the tree around a node --------------------------------------------------------------

    def chunk_of(self, node: ast.AST) -> Chunk | None:
        """The chunk of this document that holds `node` (None for nodes built by a rule)."""
        return self.source.chunk_of(node)

    @property
    def lines(self) -> Sequence[str]:
        return self.source.lines

    def start_of(self, node: ast.AST) -> Position:
        return self.source.start_of(node)

    def end_of(self, node: ast.AST) -> Position:
        return self.source.end_of(node)

    def range_of(self, node: ast.AST) -> Range:
        return self.source.range_of(node)

    def first_line_range(self, node: ast.AST) -> Range:
        """The node's range cut at the end of its first line (a compound statement's header)."""
        return self.source.first_line_range(node)

    def file_range(self) -> Range:
        return self.source.file_range()

    def source_of(self, node: ast.AST) -> str:
        return self.source.source_of(node)

    def indent_of(self, stmt: ast.stmt) -> str | None:
        """The statement's indentation, or None when it does not start its line (`if x: stmt`)."""
        return self.source.indent_of(stmt)

    def enclosing(self, node: ast.AST, *types: type[ast.AST]) -> ast.AST | None:
        return self.source.enclosing(node, *types)

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        return self.source.statement_of(node)

    # -- edits and diagnostics -----------------------------------------------------------------------------

    def import_insert_line(self, before: ast.AST | None = None) -> int:
        """Zero-based line after the module's top-level imports (above `before`'s statement, when given)."""
        return self.source.import_insert_line(before)

    def insert_lines(self, line: int, text: str) -> TextEdit:
        """An edit inserting whole lines before zero-based `line` (at the end when past the last line)."""
        return self.source.insert_lines(line, text)

    def ensure_import(self, module: str, before: ast.AST | None = None) -> tuple[str, tuple[TextEdit, ...]]:
        """The local name for `module` and the edit that imports it, with the imports (above `before`'s
        statement), when it is not imported yet."""
        name = self.names.bound_to(module)
        if name is not None:
            return name, ()
        plain = module.split(".")[0]
        source = self.source
        local = module if plain not in self.bound_names and plain not in self.top_aliases else None
        if local is None:
            local = "_proctor_" + module.replace(".", "_")
            line = source.import_insert_line(before)
            return local, (source.insert_lines(line, f"import {module} as {local}\n"),)
        return module, (source.insert_lines(source.import_insert_line(before), f"import {module}\n"),)

    def diagnostic(
        self, rule: ModuleType, where: ast.AST | Range, message: str, fix: Fix | None = None
    ) -> Diagnostic:
        rng = where if isinstance(where, Range) else self.source.range_of(where)
        return Diagnostic(rule.CODE, rule.NAME, rule.SEVERITY, self.relpath, rng, message, fix)

    @cached_property
    def directory(self) -> str:
        parent = PurePosixPath(self.relpath).parent.as_posix()
        return "" if parent == "." else parent


@lru_cache(maxsize=32)
def _norm_dir(path: str) -> str:
    posix = PurePosixPath(path.replace("\\", "/")).as_posix().strip("/")
    return "" if posix == "." else posix
