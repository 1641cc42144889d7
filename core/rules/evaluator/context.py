"""The per-document analysis every evaluator rule shares, assembled from cached chunks (`analysis/`).

It holds the module, import-alias resolution (`np.random.rand` -> `numpy.random.rand`), parent links,
module constants and exact positions: `ast` reports UTF-8 byte columns, diagnostics use code points. This is
the API the rules call; the pieces live in `analysis/` (chunks, the cutter and its cache, scopes, the merged
document tables, recorded lookups, per-chunk results) and the recording views in `views.py`.

A document is a list of placed chunks whose positions are relative to the chunk; `start_of` finds a node's
chunk and adds the chunk's line. The whole-file facts (aliases, bound names, assignments, functions...)
are merged from the chunks' own indexes on every lint, which is cheap. Rules that look at one node at a
time run per chunk on a `views.ChunkView`, which reaches whole-file facts only through lookups it records
(`answer`), so its results can be reused for an unchanged chunk while every recorded lookup still gives the
same answer.
"""

from __future__ import annotations

import ast
import bisect
import builtins
from collections.abc import Callable, Collection, Container, Iterator, Mapping, Sequence
from functools import cached_property
from pathlib import PurePosixPath
from types import ModuleType
from typing import TypeVar

from core.diagnostics import Diagnostic, Fix, Position, Range, TextEdit, byte_col_to_char
from core.lines import LINE_BREAK, split_lines
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator.analysis.ast_utils import (
    children,
    has_star_kwargs,
    int_constant,
    keyword,
    walk,
    walk_no_nested,
)
from core.rules.evaluator.analysis.chunk_results import ChunkResult
from core.rules.evaluator.analysis.chunks import MODULE_SCOPE_KINDS, Chunk, Placed
from core.rules.evaluator.analysis.cutter import OWNER
from core.rules.evaluator.analysis.document import DocumentLines, Kids, Merged, Parents
from core.rules.evaluator.analysis.flow import (
    EXIT_CALLS,
    Flow,
    Step,
    ends_abnormally,
    exclusive,
    is_error_exit,
)
from core.rules.evaluator.analysis.recorded import FACT, TABLE, Lookup
from core.rules.evaluator.analysis.scopes import MODULE, Binding, ScopeIndex, in_loop_with

__all__ = [
    "BUILTIN_NAMES",
    "EXIT_CALLS",
    "LINE_BREAK",
    "Binding",
    "ChunkResult",
    "EvaluatorContext",
    "Flow",
    "Lookup",
    "Step",
    "children",
    "ends_abnormally",
    "exclusive",
    "has_star_kwargs",
    "int_constant",
    "is_error_exit",
    "keyword",
    "register_fact",
    "split_lines",
    "walk",
    "walk_no_nested",
]

BUILTIN_NAMES = frozenset(dir(builtins))

V = TypeVar("V")
_UNKNOWN = object()
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

# Whole-file facts computed on demand from other facts, by name: `fn(ctx, key)`. Rules register them so a
# chunk view can record the answer it used (see `EvaluatorContext.fact`).
_FACTS: dict[str, Callable[[EvaluatorContext, str], object]] = {}


def register_fact(name: str, compute: Callable[[EvaluatorContext, str], object]) -> None:
    _FACTS[name] = compute


class EvaluatorContext:
    """One parsed Python document of the suite plus the lookups the rules need."""

    def __init__(
        self,
        relpath: str,
        text: str,
        kind: DocumentKind,
        lint: LintContext,
        tree: ast.Module | None = None,
        *,
        placed: Sequence[Placed] | None = None,
    ) -> None:
        self.relpath = relpath
        self.text = text
        self.kind = kind
        self.lint = lint
        if placed is None:
            if tree is None:
                raise ValueError("EvaluatorContext needs a tree or placed chunks")
            placed = [Placed(Chunk(text, tree), 0)]
        self.placed: Sequence[Placed] = placed
        self.offsets: dict[int, int] = {id(p.chunk): p.line for p in placed}
        if len(placed) == 1:
            self.tree: ast.Module = placed[0].chunk.tree
        else:
            self.tree = ast.Module(body=[s for p in placed for s in p.chunk.body], type_ignores=[])
        self.suite = _norm_dir(lint.config.evaluation_dir)
        self.data_dir = _norm_dir(lint.config.data_dir)
        self._qualnames: dict[int, str | None] = {}
        self.memo: dict[str, object] = {}  # analyses shared by several rules (flow, metric print)
        self.chunk_results: list[ChunkResult] | None = None
        self._answers: dict[Lookup, object] = {}
        self._merge()

    # -- whole-file facts, merged from the chunks ----------------------------------------------------------

    def _merge(self) -> None:
        chunks = [p.chunk for p in self.placed]
        self.parents: Mapping[ast.AST, ast.AST] = Parents(self)
        self.kids: Mapping[int, list[ast.AST]] = Kids(self)
        bound: set[str] = set()
        assigned: dict[str, list[ast.expr]] = {}
        copied: set[str] = set()  # names whose list is ours (several chunks assign them), not a chunk's
        functions: dict[str, FunctionNode] = {}
        classes: dict[str, ast.ClassDef] = {}
        aliases: dict[str, str] = {}
        top_aliases: dict[str, str] = {}
        # Each chunk's maps were built by assigning in order, so `update` keeps the order and the winner of
        # a merge that assigns every entry of every chunk in document order.
        for chunk in chunks:
            bound |= chunk.bound_names
            for name, values in chunk.assigned.items():
                known = assigned.get(name)
                if known is None:
                    assigned[name] = values
                elif name in copied:
                    known.extend(values)
                else:
                    assigned[name] = [*known, *values]
                    copied.add(name)
            functions.update(chunk.function_map)
            classes.update(chunk.class_map)
            chunk_aliases, chunk_top_aliases = chunk.alias_maps
            aliases.update(chunk_aliases)
            top_aliases.update(chunk_top_aliases)
        methods: dict[str, list[FunctionNode]] = {}
        for cls in classes.values():
            for item in cls.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    methods.setdefault(item.name, []).append(item)
        self.bound_names: Container[str] = bound
        self.assigned: Mapping[str, Sequence[ast.expr]] = assigned
        self.functions: Mapping[str, FunctionNode] = functions
        self.classes: Mapping[str, ast.ClassDef] = classes
        self.methods: Mapping[str, Sequence[FunctionNode]] = methods
        self.aliases: Mapping[str, str] = aliases
        self.top_aliases: Mapping[str, str] = top_aliases
        self.name_loads: Mapping[str, Sequence[ast.Name]] = Merged([c.name_loads for c in chunks])
        self.attribute_loads: Mapping[str, Sequence[ast.Attribute]] = Merged(
            [c.attribute_loads for c in chunks]
        )
        self._strings_by_value: Mapping[str, Sequence[ast.Constant]] = Merged(
            [c.strings_by_value for c in chunks]
        )
        self._key_adders: Mapping[str, Sequence[ast.AST]] = Merged([c.key_adders for c in chunks])

    @cached_property
    def calls(self) -> list[ast.Call]:
        return [call for p in self.placed for call in p.chunk.calls]

    @cached_property
    def nodes(self) -> list[ast.AST]:
        """Every node, pre-order, the module first: rules scan this instead of re-walking."""
        out: list[ast.AST] = [self.tree]
        for p in self.placed:
            out.extend(p.chunk.nodes)
        return out

    @cached_property
    def imports(self) -> list[ast.Import | ast.ImportFrom]:
        return [imp for p in self.placed for imp in p.chunk.imports]

    @cached_property
    def handlers(self) -> list[ast.ExceptHandler]:
        return [h for p in self.placed for h in p.chunk.handlers]

    @cached_property
    def strings(self) -> list[ast.Constant]:
        return [s for p in self.placed for s in p.chunk.strings]

    def string_nodes(self, value: str) -> Sequence[ast.Constant]:
        """Every string constant equal to `value`."""
        return self._strings_by_value.get(value, ())

    def key_adders(self, name: str) -> Sequence[ast.AST]:
        """`name[...] = ...` assignments and `name.update(...)`/`name.setdefault(...)` calls, in order."""
        return self._key_adders.get(name, ())

    def has_fast_parameter(self) -> bool:
        return any(p.chunk.fast_parameter for p in self.placed)

    def flow_body(self) -> Sequence[ast.stmt]:
        """The module's statements minus plain `def`s (see `Chunk.flow_body`)."""
        return [s for p in self.placed for s in p.chunk.flow_body]

    def method_calls(self, *attrs: str) -> list[ast.Call]:
        """Calls `x.attr(...)` for any of `attrs`, in document order (a syntactic pre-filter)."""
        out: list[ast.Call] = []
        for p in self.placed:
            found = [c for attr in attrs for c in p.chunk.method_calls.get(attr, ())]
            if len(attrs) > 1:
                found.sort(key=lambda c: p.chunk.call_index[id(c)])
            out.extend(found)
        return out

    def star_kwarg_calls(self) -> list[ast.Call]:
        return [c for p in self.placed for c in p.chunk.star_kwarg_calls]

    def fact(self, name: str, key: str) -> object:
        """A registered whole-file fact (`register_fact`), memoized per lint."""
        memo_key = Lookup(FACT, key, name)
        if memo_key in self._answers:
            return self._answers[memo_key]
        value = _FACTS[name](self, key)
        self._answers[memo_key] = value
        return value

    def facts(self, name: str) -> list[object] | None:
        """The per-chunk facts `name` of every chunk, in order; None when the chunk passes have not run."""
        if self.chunk_results is None:
            return None
        return [item for result in self.chunk_results for item in result.facts.get(name, ())]

    # -- recorded lookups (what a chunk view asked, answered again for validation) ---------------------------

    def answer(self, lookup: Lookup) -> object:
        """The document's answer to one whole-file question (memoized per lint)."""
        if lookup in self._answers:
            return self._answers[lookup]
        value: object
        kind = lookup.kind
        answer = _ANSWERS.get(kind)
        if answer is not None:
            value = answer(self, lookup.key)
        elif kind in MODULE_SCOPE_KINDS:
            value = self._module_answer(lookup)
        elif kind == FACT:
            value = self.fact(lookup.detail, lookup.key)
        elif kind == TABLE:
            mapping: Mapping[str, object] = getattr(self, lookup.detail)
            value = tuple((k, _tuple(v) if isinstance(v, list) else v) for k, v in mapping.items())
        else:
            raise KeyError(kind)
        self._answers[lookup] = value
        return value

    def read(self, lookup: Lookup) -> object:
        """A whole-file lookup (views record it; the document answers it directly)."""
        return self.answer(lookup)

    @cached_property
    def _module_scope(self) -> tuple[dict[str, list[tuple[int, Binding]]], dict[str, list[Binding]]]:
        """(name -> its module-scope bindings with their top-level statement's index, in document order;
        name -> bindings in functions that declare it `global`)."""
        order = self._top_order
        module: dict[str, list[tuple[int, Binding]]] = {}
        declared: dict[str, list[Binding]] = {}
        for placed in self.placed:
            index = placed.chunk.scope_index
            for name, found in index.module_bindings.items():
                module.setdefault(name, []).extend((order.get(id(b.top), -1), b) for b in found)
            for name, found in index.global_bindings.items():
                declared.setdefault(name, []).extend(found)
        return module, declared

    @cached_property
    def _top_order(self) -> dict[int, int]:
        return {id(stmt): number for number, stmt in enumerate(self.tree.body)}

    def _module_answer(self, lookup: Lookup) -> object:
        kind, name = lookup.kind, lookup.key
        module, declared = self._module_scope
        found = module.get(name, [])
        if kind == "module_all":
            return tuple(b for _, b in found) + tuple(declared.get(name, ()))
        if kind == "module_last":
            return found[-1][1] if found and name not in declared else None
        limit = self._top_order.get(lookup.asker, -1)
        before = [b for number, b in found if number < limit]
        if kind == "module_before":
            return before[-1] if before else None
        # module_reaching: from the last binding that is a whole top-level statement (it always runs) on.
        start = 0
        for at, binding in enumerate(before):
            if binding.stmt is binding.top:
                start = at
        return tuple(before[start:])

    # -- scoped name resolution (scopes.py) -------------------------------------------------------------

    def binding(self, use: ast.Name) -> Binding | None:
        """The binding a reader takes `use` to mean: the nearest preceding one in the scope that binds the
        name (its function, then enclosing functions); for module names, the last binding before the
        statement at module level, the last one in the file from inside a function. None when unknown."""
        chunk = self.chunk_of(use)
        if chunk is None:
            return None
        index = chunk.scope_index
        key, via_global = index.owner(use)
        if key != MODULE:
            found = index.scopes[key].bindings[use.id]
            preceding = [b for b in found if b.pos <= _start(use)]
            if preceding:
                return preceding[-1]
            return found[0] if len(found) == 1 and not _inside(found[0], use) else None
        if via_global or index.in_function(use):
            last = self.read(Lookup("module_last", use.id))
            return last if isinstance(last, Binding) else None
        top = _top_statement(chunk, use)
        local = [b for b in index.module_bindings.get(use.id, ()) if b.top is top and b.pos <= _start(use)]
        if local:
            return local[-1]
        before = self.read(Lookup("module_before", use.id, asker=id(top)))
        return before if isinstance(before, Binding) else None

    def value_of(self, use: ast.AST) -> ast.expr | None:
        """The value assigned to the name `use` (`name = value`), by scope; None for anything else."""
        if not isinstance(use, ast.Name):
            return None
        found = self.binding(use)
        return found.value if found is not None and found.kind == "value" else None

    def reaching(self, use: ast.Name) -> Sequence[Binding]:
        """Every binding whose value may reach `use` (for taint: branches and loops kept, what a later
        binding in the same block always overwrites dropped)."""
        chunk = self.chunk_of(use)
        if chunk is None:
            return ()
        index = chunk.scope_index
        key, via_global = index.owner(use)
        if key != MODULE:
            return _reaching(index, index.scopes[key].bindings[use.id], use)
        if via_global or index.in_function(use):
            everything = self.read(Lookup("module_all", use.id))
            assert isinstance(everything, tuple)
            return everything
        top = _top_statement(chunk, use)
        local = [b for b in index.module_bindings.get(use.id, ()) if b.top is top]
        found = list(_reaching(index, local, use, fallback=False)) if local else []
        if not any(index.dominates(b, use) for b in found):
            earlier = self.read(Lookup("module_reaching", use.id, asker=id(top)))
            assert isinstance(earlier, tuple)
            found = [*earlier, *found]
        return found

    def still_valid(self, result: ChunkResult) -> bool:
        return self.reads_hold(result.reads)

    def reads_hold(self, reads: Mapping[Lookup, object]) -> bool:
        """Every recorded lookup still gives the recorded answer in this document."""
        answers = self._answers
        for read, value in reads.items():
            known = answers.get(read, _UNKNOWN)
            if known is _UNKNOWN:
                known = self.answer(read)
            if known != value:
                return False
        return True

    # -- names ---------------------------------------------------------------------------------------------

    def qualname(self, expr: ast.AST) -> str | None:
        """`np.random.rand` -> `numpy.random.rand`; builtins keep their name; anything local is None."""
        key = id(expr)
        if key in self._qualnames:
            return self._qualnames[key]
        result: str | None = None
        if isinstance(expr, ast.Name):
            alias = self.aliases.get(expr.id)
            if alias is not None:
                result = alias
            elif expr.id in BUILTIN_NAMES and expr.id not in self.bound_names:
                result = expr.id
        elif isinstance(expr, ast.Attribute):
            base = self.qualname(expr.value)
            result = f"{base}.{expr.attr}" if base is not None else None
        self._qualnames[key] = result
        return result

    def call_name(self, call: ast.Call) -> str | None:
        return self.qualname(call.func)

    def calls_to(self, qualnames: Collection[str]) -> Iterator[tuple[ast.Call, str]]:
        if self.chunk_results is None:
            for call in self.calls:
                name = self.call_name(call)
                if name is not None and name in qualnames:
                    yield call, name
            return
        found = sorted(
            (hit for qualname in qualnames for hit in self._calls_named(qualname)), key=lambda hit: hit[:2]
        )
        for _, _, call in found:
            name = self.call_name(call)
            if name is not None:
                yield call, name

    def _calls_named(self, qualname: str) -> list[tuple[int, int, ast.Call]]:
        """(chunk number, call number in the chunk, call) of every call to `qualname`, memoized per lint."""
        by_name = self.memo.get("calls_by_name")
        if not isinstance(by_name, dict):
            by_name = self.memo["calls_by_name"] = {}
        found: list[tuple[int, int, ast.Call]] | None = by_name.get(qualname)
        if found is None:
            found = []
            for number, result in enumerate(self.chunk_results or ()):
                hits = result.calls_by_name.get(qualname)
                if hits:
                    found.extend((number, index, call) for index, call in hits)
            by_name[qualname] = found
        return found

    def method_name(self, call: ast.Call) -> str | None:
        """The attribute called, for method calls on values we cannot resolve (`path.iterdir()`)."""
        return call.func.attr if isinstance(call.func, ast.Attribute) else None

    def is_wrapped_in(self, node: ast.AST, *funcs: str) -> bool:
        parent = self.parents.get(node)
        return isinstance(parent, ast.Call) and node in parent.args and self.call_name(parent) in funcs

    def local_function(self, call: ast.Call) -> FunctionNode | None:
        if isinstance(call.func, ast.Name) and call.func.id not in self.aliases:
            return self.functions.get(call.func.id)
        return None

    def string_value(self, expr: ast.AST) -> str | None:
        """A string literal, or a name bound to one (by scope)."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value
        if isinstance(expr, ast.Name):
            value = self.value_of(expr)
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
        return None

    def enclosing(self, node: ast.AST, *types: type[ast.AST]) -> ast.AST | None:
        current = self.parents.get(node)
        while current is not None and not isinstance(current, types):
            current = self.parents.get(current)
        return current

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = self.parents.get(current)
        return current

    def bound_to(self, qualified: str) -> str | None:
        """A module-level name bound to the module `qualified` (`np` for numpy), if any."""
        for name, target in self.top_aliases.items():
            if target == qualified:
                return name
        return None

    # -- positions -----------------------------------------------------------------------------------------

    def chunk_of(self, node: ast.AST) -> Chunk | None:
        """The chunk of this document that holds `node` (None for nodes built by a rule)."""
        chunk = OWNER.get(id(node))
        if chunk is not None and id(chunk) in self.offsets and id(node) in chunk.ids:
            return chunk
        if len(self.placed) == 1:
            only = self.placed[0].chunk
            return only if id(node) in only.ids else None
        for placed in self.placed:
            if id(node) in placed.chunk.ids:
                return placed.chunk
        return None

    @cached_property
    def lines(self) -> Sequence[str]:
        return DocumentLines(self.placed) if self.placed else split_lines(self.text)

    def char_col(self, lineno: int, byte_col: int) -> int:
        """Code-point column for a 1-based document line and a UTF-8 byte column."""
        index = lineno - 1
        if not 0 <= index < len(self.lines):
            return byte_col
        line = self.lines[index]
        return byte_col if line.isascii() else byte_col_to_char(line, byte_col)

    def start_of(self, node: ast.AST) -> Position:
        chunk = self.chunk_of(node)
        if chunk is None:
            lineno: int = getattr(node, "lineno", 1)
            return Position(lineno - 1, self.char_col(lineno, getattr(node, "col_offset", 0)))
        line, character = chunk.start(node)
        return Position(line + self.offsets[id(chunk)], character)

    def end_of(self, node: ast.AST) -> Position:
        chunk = self.chunk_of(node)
        if chunk is None:
            end_line: int | None = getattr(node, "end_lineno", None)
            lineno: int = end_line if end_line is not None else getattr(node, "lineno", 1)
            end_col: int | None = getattr(node, "end_col_offset", None)
            col: int = end_col if end_col is not None else getattr(node, "col_offset", 0)
            return Position(lineno - 1, self.char_col(lineno, col))
        line, character = chunk.end(node)
        return Position(line + self.offsets[id(chunk)], character)

    def range_of(self, node: ast.AST) -> Range:
        return Range(self.start_of(node), self.end_of(node))

    def first_line_range(self, node: ast.AST) -> Range:
        """The node's range cut at the end of its first line (a compound statement's header)."""
        start = self.start_of(node)
        end = self.end_of(node)
        if end.line != start.line:
            line = self.lines[start.line] if start.line < len(self.lines) else ""
            end = Position(start.line, len(line.rstrip()))
        return Range(start, end)

    def file_range(self) -> Range:
        first = self.lines[0] if self.lines else ""
        return Range.of(0, 0, 0, len(first))

    def source_of(self, node: ast.AST) -> str:
        chunk = self.chunk_of(node)
        if chunk is not None:
            return chunk.source_of(node)
        start, end = self.start_of(node), self.end_of(node)
        if start.line == end.line:
            return self.lines[start.line][start.character : end.character]
        parts = [self.lines[start.line][start.character :]]
        parts.extend(self.lines[start.line + 1 : end.line])
        parts.append(self.lines[end.line][: end.character])
        return "\n".join(parts)

    def indent_of(self, stmt: ast.stmt) -> str | None:
        """The statement's indentation, or None when it does not start its line (`if x: stmt`)."""
        chunk = self.chunk_of(stmt)
        lines = chunk.lines if chunk is not None else self.lines
        line = lines[stmt.lineno - 1]
        stripped = len(line) - len(line.lstrip(" \t"))
        character = chunk.start(stmt)[1] if chunk is not None else self.start_of(stmt).character
        if character != stripped:
            return None
        return line[:stripped]

    def import_insert_line(self, before: ast.AST | None = None) -> int:
        """Zero-based line after the module's top-level imports (only those above the top-level statement
        holding `before`, when given): where an inserted import goes, and a module-level seed after it."""
        body = self.tree.body
        limit = len(body)
        if before is not None:
            top: ast.AST = before
            while (parent := self.parents.get(top)) is not None and parent is not self.tree:
                top = parent
            limit = self._top_order.get(id(top), limit)
        ends = self._import_ends
        at = bisect.bisect_left(ends, (limit, -1))
        return ends[at - 1][1] if at else 0

    @cached_property
    def _import_ends(self) -> list[tuple[int, int]]:
        """(index, the line after it) of each top-level docstring or import statement: every fix that adds
        an import asks where, so the module is scanned once per lint."""
        ends: list[tuple[int, int]] = []
        for index, stmt in enumerate(self.tree.body):
            is_doc = index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            is_import = isinstance(stmt, ast.Import | ast.ImportFrom)
            is_guarded_import = isinstance(stmt, ast.Try) and all(
                isinstance(s, ast.Import | ast.ImportFrom) for s in stmt.body
            )
            if is_doc or is_import or is_guarded_import:
                ends.append((index, self.end_of(stmt).line + 1))
        return ends

    def insert_lines(self, line: int, text: str) -> TextEdit:
        """An edit inserting whole lines before zero-based `line` (at the end when past the last line)."""
        if line >= len(self.lines):
            last = len(self.lines) - 1
            end = Position(last, len(self.lines[last]))
            prefix = "" if self.lines[last] == "" else "\n"
            return TextEdit(self.relpath, Range(end, end), prefix + text)
        pos = Position(line, 0)
        return TextEdit(self.relpath, Range(pos, pos), text)

    def ensure_import(self, module: str, before: ast.AST | None = None) -> tuple[str, tuple[TextEdit, ...]]:
        """The local name for `module` and the edit that imports it, with the imports (above `before`'s
        statement), when it is not imported yet."""
        name = self.bound_to(module)
        if name is not None:
            return name, ()
        plain = module.split(".")[0]
        local = module if plain not in self.bound_names and plain not in self.top_aliases else None
        if local is None:
            local = "_proctor_" + module.replace(".", "_")
            line = self.import_insert_line(before)
            return local, (self.insert_lines(line, f"import {module} as {local}\n"),)
        return module, (self.insert_lines(self.import_insert_line(before), f"import {module}\n"),)

    # -- diagnostics ---------------------------------------------------------------------------------------

    def diagnostic(
        self, rule: ModuleType, where: ast.AST | Range, message: str, fix: Fix | None = None
    ) -> Diagnostic:
        rng = where if isinstance(where, Range) else self.range_of(where)
        return Diagnostic(rule.CODE, rule.NAME, rule.SEVERITY, self.relpath, rng, message, fix)

    # -- files ---------------------------------------------------------------------------------------------

    @cached_property
    def directory(self) -> str:
        parent = PurePosixPath(self.relpath).parent.as_posix()
        return "" if parent == "." else parent


def _tuple(values: Sequence[V] | None) -> tuple[V, ...] | None:
    return None if values is None else tuple(values)


_Answer = Callable[[EvaluatorContext, str], object]
_ANSWERS: dict[str, _Answer] = {
    "alias": lambda ctx, key: ctx.aliases.get(key),
    "top_alias": lambda ctx, key: ctx.top_aliases.get(key),
    "bound": lambda ctx, key: key in ctx.bound_names,
    "assigned": lambda ctx, key: _tuple(ctx.assigned.get(key)),
    "function": lambda ctx, key: ctx.functions.get(key),
    "class": lambda ctx, key: ctx.classes.get(key),
    "methods": lambda ctx, key: _tuple(ctx.methods.get(key)),
    "name_loads": lambda ctx, key: _tuple(ctx.name_loads.get(key)),
    "attribute_loads": lambda ctx, key: _tuple(ctx.attribute_loads.get(key)),
    "module": lambda ctx, _key: tuple(ctx.tree.body),
    "flow_body": lambda ctx, _key: tuple(ctx.flow_body()),
    "key_adders": lambda ctx, key: tuple(ctx.key_adders(key)),
    "strings": lambda ctx, key: tuple(ctx.string_nodes(key)),
    "fast_parameter": lambda ctx, _key: ctx.has_fast_parameter(),
    "exists": lambda ctx, key: ctx.lint.path_exists(key),
}
"""How the document answers each kind of recorded lookup (`EvaluatorContext.answer`) for a key; the
module-scope kinds, registered facts (`FACT`) and whole tables (`TABLE`) are answered there."""


def _norm_dir(path: str) -> str:
    posix = PurePosixPath(path.replace("\\", "/")).as_posix().strip("/")
    return "" if posix == "." else posix


def _start(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _inside(binding: Binding, use: ast.AST) -> bool:
    """`use` is part of the statement that makes the binding (`x = f(x)`): it cannot see that binding."""
    return _start(binding.stmt) <= _start(use) <= binding.pos


def _top_statement(chunk: Chunk, node: ast.AST) -> ast.AST:
    """The chunk's top-level statement that holds `node`."""
    current = node
    while id(current) not in chunk.top_level:
        parent = chunk.parents.get(current)
        if parent is None:
            break
        current = parent
    return current


def _reaching(
    index: ScopeIndex, found: Sequence[Binding], use: ast.Name, fallback: bool = True
) -> list[Binding]:
    at = _start(use)
    preceding = [b for b in found if b.pos <= at]
    start = 0
    for number, binding in enumerate(preceding):
        if index.dominates(binding, use):
            start = number
    reached = preceding[start:] + [b for b in found if b.pos > at and in_loop_with(index, b, use)]
    if not reached and fallback:
        return list(found)
    return reached
