"""Where each name of a chunk is bound, scope by scope, so a use resolves the way a reader reads it.

Python resolves a name in the function that uses it, then in enclosing functions, then in the module;
rules that follow a variable to its value (`path` -> `DATA / "test_labels.csv"`, `f` -> `open(RESULT, "w")`)
must do the same, or `f` in one function is mistaken for `f` in another. The index is built once per chunk
(a function never spans chunks) and holds every binding: assignments, `with ... as`, loop and comprehension
targets, parameters, imports and the like, with the point in the chunk from which each one holds.

Module-scope bindings can sit in other chunks; `context.EvaluatorContext.binding` asks for them through
recorded lookups keyed by top-level statement, so the answer never depends on how the file was cut.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.rules.evaluator.analysis.ast_utils import children

MODULE = 0  # the scope key of the module (functions, lambdas, classes and comprehensions use id(node))

FunctionLike = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
Comprehension = ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp


@dataclass(frozen=True, eq=False)
class Binding:
    """One binding of a name. `kind` is "value" (`name = value`, the value known), "with" (`with value as
    name`), "iter" (a loop or comprehension target over `value`), "unpack" (one name of a tuple target of
    `value`), "aug" (`name += value`) or "other" (a parameter, import, def, except name...: no value).

    Identity is the equality: a chunk's bindings are built once, so a recorded answer that names the same
    objects is the same answer."""

    name: str
    kind: str
    value: ast.expr | None
    stmt: ast.AST  # the statement (or expression) that binds: what a later use is dominated by
    pos: tuple[int, int]  # chunk position from which the binding holds
    scope: int
    top: ast.stmt  # the chunk's top-level statement holding it


@dataclass
class Scope:
    node: ast.AST | None
    parent: int | None  # the enclosing scope's key (None for the module)
    is_class: bool = False
    is_comprehension: bool = False
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)


class Indexed(Protocol):
    """What the index needs of a parsed chunk (`chunks.Chunk`): its statements and their links."""

    @property
    def body(self) -> list[ast.stmt]: ...

    @property
    def kids(self) -> dict[int, list[ast.AST]]: ...

    @property
    def parents(self) -> dict[ast.AST, ast.AST]: ...


class ScopeIndex:
    """Every scope of one chunk and the bindings in each, plus which scope each node is evaluated in."""

    def __init__(self, chunk: Indexed, module_only: bool = False) -> None:
        self.chunk = chunk
        self._module_only = module_only  # leave function, lambda and class bodies out (`module_scope_names`)
        self.scopes: dict[int, Scope] = {MODULE: Scope(None, None)}
        self.scope_of: dict[int, int] = {}  # id(node) -> key of the scope it is evaluated in
        self.global_bindings: dict[str, list[Binding]] = {}  # bindings in functions declaring the name global
        self._top: ast.stmt | None = None
        self._stack: list[tuple[ast.AST, int]] = []
        kids = chunk.kids
        stack = self._stack
        for stmt in chunk.body:
            self._top = stmt
            stack.append((stmt, MODULE))
            while stack:
                node, key = stack.pop()
                handler = _HANDLERS.get(type(node))
                if handler is not None:
                    handler(self, node, key)
                elif isinstance(node, ast.Name):
                    self.scope_of[id(node)] = key
                    if not isinstance(node.ctx, ast.Load):  # `del name`
                        self._bind(key, node.id, "other", None, node, _end(node))
                else:
                    stack.extend((child, key) for child in kids.get(id(node), ()))
        for scope in self.scopes.values():
            for found in scope.bindings.values():
                found.sort(key=lambda b: b.pos)
        module = self.scopes[MODULE].bindings
        self.module_bindings: dict[str, list[Binding]] = module
        for key, scope in self.scopes.items():
            if key == MODULE or not scope.globals:
                continue
            for name in scope.globals:
                for binding in scope.bindings.get(name, ()):
                    self.global_bindings.setdefault(name, []).append(binding)

    # -- building ----------------------------------------------------------------------------------------

    def _new_scope(
        self, node: ast.AST, parent: int, is_class: bool = False, is_comprehension: bool = False
    ) -> int:
        key = id(node)
        self.scopes[key] = Scope(node, parent, is_class, is_comprehension)
        return key

    def _bind(
        self, scope: int, name: str, kind: str, value: ast.expr | None, stmt: ast.AST, pos: tuple[int, int]
    ) -> None:
        # A walrus in a comprehension binds in the enclosing function (PEP 572).
        target = self.scopes[scope]
        assert self._top is not None
        target.bindings.setdefault(name, []).append(Binding(name, kind, value, stmt, pos, scope, self._top))

    def _bind_target(
        self,
        target: ast.AST,
        scope: int,
        kind: str,
        value: ast.expr | None,
        stmt: ast.AST,
        pos: tuple[int, int],
    ) -> None:
        if isinstance(target, ast.Name):
            self.scope_of[id(target)] = scope
            self._bind(scope, target.id, kind, value, stmt, pos)
        elif isinstance(target, ast.Tuple | ast.List):
            inner = "unpack" if kind == "value" else kind
            for element in target.elts:
                self._bind_target(element, scope, inner, value, stmt, pos)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, scope, "unpack" if kind == "value" else kind, value, stmt, pos)
        else:  # attribute or subscript targets bind nothing; their parts are ordinary loads
            self._visit(target, scope)

    def _visit_all(self, nodes: list[ast.AST] | list[ast.stmt] | list[ast.expr], scope: int) -> None:
        for node in nodes:
            self._visit(node, scope)

    def _visit(self, node: ast.AST, scope: int) -> None:
        self._stack.append((node, scope))

    # -- what each node type binds and where its parts are evaluated (`_HANDLERS`) ---------------------

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: int) -> None:
        self._visit_all(node.decorator_list, scope)
        self._visit_arguments(node.args, scope)
        if node.returns is not None:
            self._visit(node.returns, scope)
        self._bind(scope, node.name, "other", None, node, _end(node))
        if self._module_only:
            return
        inner = self._new_scope(node, scope)
        self._bind_parameters(node.args, inner, node)
        self._visit_all(node.body, inner)

    def _lambda(self, node: ast.Lambda, scope: int) -> None:
        self._visit_arguments(node.args, scope)
        if self._module_only:
            return
        inner = self._new_scope(node, scope)
        self._bind_parameters(node.args, inner, node)
        self._visit(node.body, inner)

    def _class(self, node: ast.ClassDef, scope: int) -> None:
        self._visit_all(node.decorator_list, scope)
        self._visit_all(node.bases, scope)
        self._visit_all([kw.value for kw in node.keywords], scope)
        self._bind(scope, node.name, "other", None, node, _end(node))
        if self._module_only:
            return
        inner = self._new_scope(node, scope, is_class=True)
        self._visit_all(node.body, inner)

    def _comprehension(self, node: Comprehension, scope: int) -> None:
        generators = node.generators
        if generators:
            self._visit(generators[0].iter, scope)
        inner = self._new_scope(node, scope, is_comprehension=True)
        for number, gen in enumerate(generators):
            self.scope_of[id(gen)] = inner
            if number:
                self._visit(gen.iter, inner)
            self._bind_target(gen.target, inner, "iter", gen.iter, gen, (0, 0))
            self._visit_all(gen.ifs, inner)
        if isinstance(node, ast.DictComp):
            self._visit(node.key, inner)
            self._visit(node.value, inner)
        else:
            self._visit(node.elt, inner)

    def _assign(self, node: ast.Assign, scope: int) -> None:
        self._visit(node.value, scope)
        for target in node.targets:
            self._bind_target(target, scope, "value", node.value, node, _end(node))

    def _ann_assign(self, node: ast.AnnAssign, scope: int) -> None:
        self._visit(node.annotation, scope)
        if node.value is not None:
            self._visit(node.value, scope)
            self._bind_target(node.target, scope, "value", node.value, node, _end(node))
        elif not isinstance(node.target, ast.Name):
            self._visit(node.target, scope)

    def _aug_assign(self, node: ast.AugAssign, scope: int) -> None:
        self._visit(node.value, scope)
        self._bind_target(node.target, scope, "aug", node.value, node, _end(node))

    def _named_expr(self, node: ast.NamedExpr, scope: int) -> None:
        self._visit(node.value, scope)
        target_scope = scope
        while self.scopes[target_scope].is_comprehension:
            parent = self.scopes[target_scope].parent
            assert parent is not None
            target_scope = parent
        self._bind_target(node.target, target_scope, "value", node.value, node, _end(node))

    def _for(self, node: ast.For | ast.AsyncFor, scope: int) -> None:
        self._visit(node.iter, scope)
        self._bind_target(node.target, scope, "iter", node.iter, node, _end(node.iter))
        self._visit_all(node.body, scope)
        self._visit_all(node.orelse, scope)

    def _with(self, node: ast.With | ast.AsyncWith, scope: int) -> None:
        for item in node.items:
            self._visit(item.context_expr, scope)
            if item.optional_vars is not None:
                kind = "with" if isinstance(item.optional_vars, ast.Name) else "other"
                self._bind_target(
                    item.optional_vars, scope, kind, item.context_expr, node, _end(item.optional_vars)
                )
        self._visit_all(node.body, scope)

    def _import(self, node: ast.Import | ast.ImportFrom, scope: int) -> None:
        for alias in node.names:
            if alias.name != "*":
                local = alias.asname or alias.name.split(".")[0]
                self._bind(scope, local, "other", None, node, _end(node))

    def _handler(self, node: ast.ExceptHandler, scope: int) -> None:
        if node.type is not None:
            self._visit(node.type, scope)
        if node.name:
            self._bind(scope, node.name, "other", None, node, _end(node.type or node))
        self._visit_all(node.body, scope)

    def _global(self, node: ast.Global, scope: int) -> None:
        self.scopes[scope].globals.update(node.names)

    def _nonlocal(self, node: ast.Nonlocal, scope: int) -> None:
        self.scopes[scope].nonlocals.update(node.names)

    def _match_capture(self, node: ast.MatchAs | ast.MatchStar | ast.MatchMapping, scope: int) -> None:
        name = node.rest if isinstance(node, ast.MatchMapping) else node.name
        if name:
            self._bind(scope, name, "other", None, node, _end(node))
        for child in children(node):
            self._visit(child, scope)

    def _visit_arguments(self, args: ast.arguments, scope: int) -> None:
        """Defaults and annotations are evaluated where the function is defined."""
        for default in (*args.defaults, *(d for d in args.kw_defaults if d is not None)):
            self._visit(default, scope)
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None and arg.annotation is not None:
                self._visit(arg.annotation, scope)

    def _bind_parameters(self, args: ast.arguments, scope: int, node: ast.AST) -> None:
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                self._bind(scope, arg.arg, "other", None, node, (0, 0))

    # -- lookups -------------------------------------------------------------------------------------------

    def owner(self, use: ast.Name) -> tuple[int, bool]:
        """(the scope that binds the name at this use, or MODULE; whether that is a `global` redirection).

        Class scopes are seen only by their own body, as in Python."""
        name = use.id
        key: int | None = self.scope_of.get(id(use), MODULE)
        first = True
        while key is not None and key != MODULE:
            scope = self.scopes[key]
            if name in scope.globals:
                return MODULE, True
            if not (scope.is_class and not first) and name not in scope.nonlocals and name in scope.bindings:
                return key, False
            first = False
            key = scope.parent
        return MODULE, False

    def in_function(self, node: ast.AST) -> bool:
        """`node` runs when a function or lambda is called, not where it is written."""
        key: int | None = self.scope_of.get(id(node), MODULE)
        while key is not None and key != MODULE:
            scope = self.scopes[key]
            if not (scope.is_class or scope.is_comprehension):
                return True
            key = scope.parent
        return False

    def dominates(self, binding: Binding, use: ast.AST) -> bool:
        """Every path from the function (or top-level statement) start to `use` runs `binding` first:
        the binding's statement encloses the use, or a later statement of the same block does."""
        if binding.pos > _start(use):
            return False
        stmt = binding.stmt
        parents = self.chunk.parents
        slot = _slot(parents, stmt)
        current: ast.AST | None = use
        while current is not None:
            if current is stmt:
                return True
            if slot is not None and isinstance(current, ast.stmt):
                mine = _slot(parents, current)
                if mine is not None and mine[0] is slot[0] and mine[1] == slot[1] and mine[2] > slot[2]:
                    return True
            if isinstance(current, FunctionLike | ast.ClassDef) and current is not use:
                return False
            current = parents.get(current)
        return False


_Handler = Callable[[ScopeIndex, Any, int], None]
_HANDLERS: dict[type[ast.AST], _Handler] = {
    ast.FunctionDef: ScopeIndex._function,
    ast.AsyncFunctionDef: ScopeIndex._function,
    ast.Lambda: ScopeIndex._lambda,
    ast.ClassDef: ScopeIndex._class,
    ast.ListComp: ScopeIndex._comprehension,
    ast.SetComp: ScopeIndex._comprehension,
    ast.GeneratorExp: ScopeIndex._comprehension,
    ast.DictComp: ScopeIndex._comprehension,
    ast.Assign: ScopeIndex._assign,
    ast.AnnAssign: ScopeIndex._ann_assign,
    ast.AugAssign: ScopeIndex._aug_assign,
    ast.NamedExpr: ScopeIndex._named_expr,
    ast.For: ScopeIndex._for,
    ast.AsyncFor: ScopeIndex._for,
    ast.With: ScopeIndex._with,
    ast.AsyncWith: ScopeIndex._with,
    ast.Import: ScopeIndex._import,
    ast.ImportFrom: ScopeIndex._import,
    ast.ExceptHandler: ScopeIndex._handler,
    ast.Global: ScopeIndex._global,
    ast.Nonlocal: ScopeIndex._nonlocal,
    ast.MatchAs: ScopeIndex._match_capture,
    ast.MatchStar: ScopeIndex._match_capture,
    ast.MatchMapping: ScopeIndex._match_capture,
}
"""The node types that bind names or open scopes; every other node passes its scope on to its children."""


def module_scope_names(chunk: Indexed) -> set[str]:
    """The names a chunk binds at module scope (`ScopeIndex.module_bindings`), found without indexing the
    bodies of its functions, lambdas and classes: most of a chunk's nodes, and none of them binds a module
    name unless it declares the name `global` (the caller's business: `ScopeIndex.global_bindings`)."""
    return set(ScopeIndex(chunk, module_only=True).module_bindings)


def _slot(parents: dict[ast.AST, ast.AST], stmt: ast.AST) -> tuple[ast.AST, str, int] | None:
    """(parent, field, index) of a statement in its block."""
    parent = parents.get(stmt)
    if parent is None:
        return None
    for name in ("body", "orelse", "finalbody"):
        block = getattr(parent, name, None)
        if isinstance(block, list):
            for index, item in enumerate(block):
                if item is stmt:
                    return parent, name, index
    return None


def _start(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _end(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0


def in_loop_with(index: ScopeIndex, binding: Binding, use: ast.AST) -> bool:
    """The binding comes after the use inside a loop that also holds the use (its value reaches the use
    on the next iteration)."""
    parents = index.chunk.parents
    current = parents.get(use)
    while current is not None and not isinstance(current, FunctionLike | ast.ClassDef):
        if isinstance(current, ast.For | ast.AsyncFor | ast.While):
            start, end = _start(current), _end(current)
            if start <= binding.pos <= end:
                return True
        current = parents.get(current)
    return False
