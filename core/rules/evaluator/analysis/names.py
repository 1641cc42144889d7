"""What a name or call in the document means: import aliases (`np.random.rand` -> `numpy.random.rand`),
builtins, local functions, and the binding a use of a name reads, by scope (`scopes.py`).

Whole-file facts come through `tables.WholeFile` and module-scope questions through the store, so a chunk
view that resolves names records every answer it depended on.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Collection, Iterator, Mapping, Sequence

from core.rules.evaluator.analysis.chunks import Chunk
from core.rules.evaluator.analysis.lookup_store import Store
from core.rules.evaluator.analysis.node_lists import Nodes
from core.rules.evaluator.analysis.recorded import Lookup
from core.rules.evaluator.analysis.scopes import MODULE, Binding, ScopeIndex, in_loop_with
from core.rules.evaluator.analysis.source_text import SourceText
from core.rules.evaluator.analysis.tables import FunctionNode, WholeFile

__all__ = ["BUILTIN_NAMES", "NameResolver"]

BUILTIN_NAMES = frozenset(dir(builtins))


class NameResolver:
    """Names and bindings of one context (the document, or a chunk view that records what it reads)."""

    def __init__(self, tables: WholeFile, source: SourceText, store: Store, nodes: Nodes) -> None:
        self._tables = tables
        self._source = source
        self._store = store
        self._nodes = nodes
        self._parents: Mapping[ast.AST, ast.AST] = source.parents
        self._qualnames: dict[int, str | None] = {}  # id(attribute) -> its qualified name
        self._name_qualnames: dict[str, str | None] = {}  # a bare name's, by the name

    # -- qualified names -------------------------------------------------------------------------------

    def qualname(self, expr: ast.AST) -> str | None:
        """`np.random.rand` -> `numpy.random.rand`; builtins keep their name; anything local is None."""
        if isinstance(expr, ast.Name):
            return self._name_qualname(expr.id)
        if not isinstance(expr, ast.Attribute):
            return None
        key = id(expr)
        if key in self._qualnames:
            return self._qualnames[key]
        base = self.qualname(expr.value)
        result = f"{base}.{expr.attr}" if base is not None else None
        self._qualnames[key] = result
        return result

    def _name_qualname(self, name: str) -> str | None:
        """A bare name's qualified name: it depends on the name alone (the same lookups for every use of
        it), so it is resolved once per name (`len`, `float`, `np` are called over and over)."""
        memo = self._name_qualnames
        if name in memo:
            return memo[name]
        result: str | None = None
        alias = self._tables.aliases.get(name)
        if alias is not None:
            result = alias
        elif name in BUILTIN_NAMES and name not in self._tables.bound_names:
            result = name
        memo[name] = result
        return result

    def call_name(self, call: ast.Call) -> str | None:
        return self.qualname(call.func)

    def calls_to(self, qualnames: Collection[str]) -> Iterator[tuple[ast.Call, str]]:
        store = self._store
        if store.chunk_results is None:
            for call in self._nodes.calls:
                name = self.call_name(call)
                if name is not None and name in qualnames:
                    yield call, name
            return
        found = sorted((hit for q in qualnames for hit in store.calls_named(q)), key=lambda hit: hit[:2])
        for _, _, call in found:
            name = self.call_name(call)
            if name is not None:
                yield call, name

    def method_name(self, call: ast.Call) -> str | None:
        """The attribute called, for method calls on values we cannot resolve (`path.iterdir()`)."""
        return call.func.attr if isinstance(call.func, ast.Attribute) else None

    def is_wrapped_in(self, node: ast.AST, *funcs: str) -> bool:
        parent = self._parents.get(node)
        return isinstance(parent, ast.Call) and node in parent.args and self.call_name(parent) in funcs

    def local_function(self, call: ast.Call) -> FunctionNode | None:
        if isinstance(call.func, ast.Name) and call.func.id not in self._tables.aliases:
            return self._tables.functions.get(call.func.id)
        return None

    def bound_to(self, qualified: str) -> str | None:
        """A module-level name bound to the module `qualified` (`np` for numpy), if any."""
        for name, target in self._tables.top_aliases.items():
            if target == qualified:
                return name
        return None

    # -- scoped bindings -------------------------------------------------------------------------------

    def binding(self, use: ast.Name) -> Binding | None:
        """The binding a reader takes `use` to mean: the nearest preceding one in the scope that binds the
        name (its function, then enclosing functions); for module names, the last binding before the
        statement at module level, the last one in the file from inside a function. None when unknown."""
        chunk = self._source.chunk_of(use)
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
            last = self._store.read(Lookup("module_last", use.id))
            return last if isinstance(last, Binding) else None
        top = _top_statement(chunk, use)
        local = [b for b in index.module_bindings.get(use.id, ()) if b.top is top and b.pos <= _start(use)]
        if local:
            return local[-1]
        before = self._store.read(Lookup("module_before", use.id, asker=id(top)))
        return before if isinstance(before, Binding) else None

    def value_of(self, use: ast.AST) -> ast.expr | None:
        """The value assigned to the name `use` (`name = value`), by scope; None for anything else."""
        if not isinstance(use, ast.Name):
            return None
        if use.id not in self._tables.bound_names:
            # Stored nowhere in the file, so no `name = value` anywhere: no scope index to build (a chunk
            # view records this one lookup, whose answer changes when an assignment of the name appears).
            return None
        found = self.binding(use)
        return found.value if found is not None and found.kind == "value" else None

    def string_value(self, expr: ast.AST) -> str | None:
        """A string literal, or a name bound to one (by scope)."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value
        if isinstance(expr, ast.Name):
            value = self.value_of(expr)
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
        return None

    def reaching(self, use: ast.Name) -> Sequence[Binding]:
        """Every binding whose value may reach `use` (for taint: branches and loops kept, what a later
        binding in the same block always overwrites dropped)."""
        chunk = self._source.chunk_of(use)
        if chunk is None:
            return ()
        index = chunk.scope_index
        key, via_global = index.owner(use)
        if key != MODULE:
            return _reaching(index, index.scopes[key].bindings[use.id], use)
        if via_global or index.in_function(use):
            everything = self._store.read(Lookup("module_all", use.id))
            assert isinstance(everything, tuple)
            return everything
        top = _top_statement(chunk, use)
        local = [b for b in index.module_bindings.get(use.id, ()) if b.top is top]
        found = list(_reaching(index, local, use, fallback=False)) if local else []
        if not any(index.dominates(b, use) for b in found):
            earlier = self._store.read(Lookup("module_reaching", use.id, asker=id(top)))
            assert isinstance(earlier, tuple)
            found = [*earlier, *found]
        return found


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
