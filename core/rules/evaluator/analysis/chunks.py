"""One parsed piece of a document and everything about it that needs no other piece (editor speed, SPEC §11).

A chunk is indexed in one pass over its nodes; what each node type adds to the index is one entry of
`_INDEXERS` (a table by node type, not a chain of `isinstance` tests; names, a third of all nodes, are indexed
in the walk itself). What few new chunks need (parent links, scopes) is built on first use. Positions are relative to the chunk:
nothing here knows where a chunk sits in a document (`Placed` says that), so an edit above a chunk does not
invalidate it. How a document is cut into chunks, and the cache, live in `cutter`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from core.diagnostics import byte_col_to_char
from core.lines import split_lines
from core.rules.evaluator.analysis.ast_utils import MANY, ONE, PLANS, checked_children
from core.rules.evaluator.analysis.scopes import ScopeIndex, module_scope_names

__all__ = ["MODULE_SCOPE_KINDS", "Chunk", "Placed"]

# Recorded lookups of module-scope bindings (`EvaluatorContext.answer`) about a name (and the asking top-level
# statement, `Lookup.asker`): a chunk binding the name at module scope takes part in all of them.
MODULE_SCOPE_KINDS = ("module_before", "module_reaching", "module_last", "module_all")


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
        self.key_adders: dict[str, list[ast.AST]] = {}
        self.fast_parameter = False  # a function with a `fast` parameter (typer/fire options)
        self.results: dict[object, object] = {}  # per-chunk rule results, keyed by lint settings
        self.post_order_calls: dict[int, list[ast.Call]] = {}  # id(expr) -> its calls, arguments first (flow)
        # The nodes by type, each list in pre-order, filled on first use (`node_lists.nodes_by_type`, by the
        # per-chunk pass: a rule looks only at the types it judges instead of testing every node).
        self.by_type: dict[type[ast.AST], list[ast.AST]] | None = None
        self._index()
        self.ids = self.kids  # id(node) -> children, for every node: doubles as the membership test

    def _index(self) -> None:
        """One pre-order walk: each node's children (`ast_utils.children`, inlined: this loop runs for every
        node of every new chunk) and what the node's type adds (`_INDEXERS`)."""
        stack: list[ast.AST] = list(reversed(self.tree.body))
        kids = self.kids
        pop, push, visit = stack.pop, stack.extend, self.nodes.append
        plans, indexers = PLANS, _INDEXERS
        name_loads, bound_names, name_type, load = self.name_loads, self.bound_names, ast.Name, ast.Load
        while stack:
            node = pop()
            visit(node)
            cls = type(node)
            # A third of all nodes are names: no children, indexed here without a call.
            if cls is name_type and isinstance(node, ast.Name):
                kids[id(node)] = []
                if type(node.ctx) is load:
                    name_loads.setdefault(node.id, []).append(node)
                else:
                    bound_names.add(node.id)
                continue
            node_kids: list[ast.AST] = []
            for name, how in plans[cls]:
                value: Any = getattr(node, name, None)
                if how == MANY:
                    node_kids += value
                elif how == ONE:
                    if value is not None:
                        node_kids.append(value)
                else:
                    node_kids += checked_children(value)
            kids[id(node)] = node_kids
            if node_kids:
                push(reversed(node_kids))
            indexer = indexers.get(cls)
            if indexer is not None:
                indexer(self, node)
        self.functions.extend(
            s for s in self.tree.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
        )
        # The top-level statements the execution-order walk (flow.py) can learn anything from: a plain
        # `def` (no decorators, no calls in its defaults) contributes no steps where it is defined.
        self.flow_body: list[ast.stmt] = [s for s in self.tree.body if _has_steps(s)]
        self.imports.sort(key=lambda n: (n.lineno, n.col_offset))

    # -- what each node type adds to the index (`_INDEXERS`) --------------------------------------------

    def _call(self, node: ast.Call) -> None:
        self.call_index[id(node)] = len(self.calls)
        self.calls.append(node)
        func = node.func
        if isinstance(func, ast.Attribute):
            self.method_calls.setdefault(func.attr, []).append(node)
            if func.attr in ("update", "setdefault") and isinstance(func.value, ast.Name):
                self.key_adders.setdefault(func.value.id, []).append(node)
        for kw in node.keywords:
            if kw.arg is None:
                self.star_kwarg_calls.append(node)
                break

    def _attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load):
            self.attribute_loads.setdefault(node.attr, []).append(node)

    def _constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self.strings.append(node)
            self.strings_by_value.setdefault(node.value, []).append(node)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        self.imports.append(node)

    def _assign(self, node: ast.Assign) -> None:
        subscripted: list[str] = []
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                subscripted.append(target.value.id)
        for name in sorted(set(subscripted)) if len(subscripted) > 1 else subscripted:
            self.key_adders.setdefault(name, []).append(node)

    def _ann_assign(self, node: ast.AnnAssign) -> None:
        target = node.target
        if isinstance(target, ast.Name):
            if node.value is not None:
                self.assigned.setdefault(target.id, []).append(node.value)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self.key_adders.setdefault(target.value.id, []).append(node)

    def _aug_assign(self, node: ast.AugAssign) -> None:
        target = node.target
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self.key_adders.setdefault(target.value.id, []).append(node)

    def _named_expr(self, node: ast.NamedExpr) -> None:
        if isinstance(node.target, ast.Name):
            self.assigned.setdefault(node.target.id, []).append(node.value)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.bound_names.add(node.name)
        if any(a.arg == "fast" for a in (*node.args.args, *node.args.kwonlyargs)):
            self.fast_parameter = True

    def _class(self, node: ast.ClassDef) -> None:
        self.bound_names.add(node.name)
        self.classes.append(node)

    def _handler(self, node: ast.ExceptHandler) -> None:
        self.handlers.append(node)

    # -- this chunk's share of the whole-file facts (merged per document by `EvaluatorContext`) ----------

    @cached_property
    def parents(self) -> dict[ast.AST, ast.AST]:
        """node -> its parent, for every node but the top-level statements, in pre-order (built on first
        use from the child links: few new chunks are asked for a parent)."""
        parents: dict[ast.AST, ast.AST] = {}
        kids = self.kids
        for node in self.nodes:
            for child in kids[id(node)]:
                parents[child] = node
        return parents

    @cached_property
    def scope_index(self) -> ScopeIndex:
        """Every binding of the chunk, scope by scope (built on first use: many chunks never need it)."""
        return ScopeIndex(self)

    @cached_property
    def function_map(self) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
        """Top-level functions by name, the last definition winning (as a sequential merge would)."""
        return {func.name: func for func in self.functions}

    @cached_property
    def class_map(self) -> dict[str, ast.ClassDef]:
        return {cls.name: cls for cls in self.classes}

    @cached_property
    def alias_maps(self) -> tuple[dict[str, str], dict[str, str]]:
        """(every import's local name -> what it binds, the same for top-level imports only), in order."""
        aliases: dict[str, str] = {}
        top_aliases: dict[str, str] = {}
        top_level = self.top_level
        for imp in self.imports:
            top = id(imp) in top_level
            if isinstance(imp, ast.Import):
                for alias in imp.names:
                    local = alias.asname or alias.name.split(".")[0]
                    bound_to = alias.name if alias.asname else local
                    aliases[local] = bound_to
                    if top:
                        top_aliases[local] = bound_to
            elif imp.level == 0 and imp.module:
                for alias in imp.names:
                    if alias.name != "*":
                        aliases[alias.asname or alias.name] = f"{imp.module}.{alias.name}"
                        if top:
                            top_aliases[alias.asname or alias.name] = f"{imp.module}.{alias.name}"
        return aliases, top_aliases

    @cached_property
    def contributed(self) -> frozenset[tuple[str, str]]:
        """Every `Lookup.subject` (`EvaluatorContext.answer`) whose answer this chunk takes part in:
        when the chunk enters or leaves a document, only lookups in this set can change answer (besides
        the document-wide ones, see `chunk_results.WIDE_KINDS`)."""
        aliases, top_aliases = self.alias_maps
        pairs: set[tuple[str, str]] = set()
        for kind, keys in (
            ("alias", aliases),
            ("top_alias", top_aliases),
            ("bound", self.bound_names),
            ("assigned", self.assigned),
            ("function", self.function_map),
            ("class", self.class_map),
            ("name_loads", self.name_loads),
            ("attribute_loads", self.attribute_loads),
            ("key_adders", self.key_adders),
            ("strings", self.strings_by_value),
        ):
            pairs.update((kind, key) for key in keys)
        for name in self.module_names:
            pairs.update((kind, name) for kind in MODULE_SCOPE_KINDS)
        return frozenset(pairs)

    @cached_property
    def module_names(self) -> set[str]:
        """The names the chunk binds at module scope, or in a function that declares them `global`: what
        its `module_*` lookups (`MODULE_SCOPE_KINDS`) are about. Without a `global` statement the function
        bodies bind none of them, so the (costly) full `scope_index` is not built for it."""
        if "global" in self.text:
            index = self.scope_index
            return {*index.module_bindings, *index.global_bindings}
        return module_scope_names(self)

    @cached_property
    def top_index(self) -> dict[int, int]:
        """id of each top-level statement -> its index in the chunk's body."""
        return {id(stmt): number for number, stmt in enumerate(self.body)}

    @cached_property
    def import_ends(self) -> list[tuple[int, int]]:
        """(index, the line after it, relative to the chunk) of a docstring-like first statement and of each
        (guarded) import: where a fix inserts an import, and a module-level seed after the imports (a
        document adds the chunks' lists up)."""
        ends: list[tuple[int, int]] = []
        for index, stmt in enumerate(self.body):
            is_doc = index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            is_import = isinstance(stmt, ast.Import | ast.ImportFrom)
            is_guarded_import = isinstance(stmt, ast.Try) and all(
                isinstance(s, ast.Import | ast.ImportFrom) for s in stmt.body
            )
            if is_doc or is_import or is_guarded_import:
                ends.append((index, self.end(stmt)[0] + 1))
        return ends

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


def _has_steps(stmt: ast.stmt) -> bool:
    """Whether a top-level statement does anything where it stands (a plain `def` does not)."""
    if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) or stmt.decorator_list:
        return True
    defaults = (d for d in (*stmt.args.defaults, *stmt.args.kw_defaults) if d)
    return any(isinstance(n, ast.Call) for d in defaults for n in ast.walk(d))


_Indexer = Callable[[Chunk, Any], None]
_INDEXERS: dict[type[ast.AST], _Indexer] = {
    ast.Call: Chunk._call,
    ast.Attribute: Chunk._attribute,
    ast.Constant: Chunk._constant,
    ast.Import: Chunk._import,
    ast.ImportFrom: Chunk._import,
    ast.Assign: Chunk._assign,
    ast.AugAssign: Chunk._aug_assign,
    ast.AnnAssign: Chunk._ann_assign,
    ast.NamedExpr: Chunk._named_expr,
    ast.FunctionDef: Chunk._function,
    ast.AsyncFunctionDef: Chunk._function,
    ast.ClassDef: Chunk._class,
    ast.ExceptHandler: Chunk._handler,
}
"""What a node of each type adds to its chunk's index (types absent here add nothing; `ast.Name` is indexed
in `Chunk._index` itself)."""
