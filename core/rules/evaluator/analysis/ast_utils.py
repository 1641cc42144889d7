"""AST helpers every part of the analysis uses: a fast child list, walks, a parse that returns its error, and
small questions about calls and constants."""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = [
    "CHECKED",
    "MANY",
    "ONE",
    "PLANS",
    "checked_children",
    "children",
    "has_star_kwargs",
    "int_constant",
    "keyword",
    "parse",
    "walk",
    "walk_no_nested",
]

_SKIP_FIELDS = frozenset({"ctx", "op", "ops", "type_ignores"})

# How a child field is read (`FieldPlan`): one node or None, a list of nodes, or anything (checked item by item).
ONE, MANY, CHECKED = 0, 1, 2
FieldPlan = tuple[tuple[str, int], ...]

_SCALAR_TYPES = frozenset({"identifier", "string", "constant", "int"})  # ASDL types that are not nodes
# Node lists that hold None items: the keys of `{**d}`, the defaults of keyword-only parameters without one.
_HOLDS_NONE = frozenset({("Dict", "keys"), ("arguments", "kw_defaults")})
_ASDL_SIGNATURE = re.compile(r"(\w+)\((.*)\)")
_ASDL_FIELD = re.compile(r"(\w+)([*?]?) (\w+)")


def _plan_of(cls: type) -> FieldPlan:
    """Which fields of a node type hold child nodes, read from the type's ASDL signature (its docstring,
    `BinOp(expr left, operator op, expr right)`); a type without one has every field checked item by item."""
    fields = tuple(f for f in getattr(cls, "_fields", ()) if f not in _SKIP_FIELDS)
    signature = _ASDL_SIGNATURE.fullmatch((cls.__doc__ or "").split("\n", 1)[0])
    types: dict[str, tuple[str, str]] = {}
    if signature is not None and signature.group(1) == cls.__name__:
        types = {name: (kind, mark) for kind, mark, name in _ASDL_FIELD.findall(signature.group(2))}
    if not set(fields) <= types.keys():
        return tuple((f, CHECKED) for f in fields)
    plan: list[tuple[str, int]] = []
    for name in fields:
        kind, mark = types[name]
        if kind in _SCALAR_TYPES:
            continue
        if mark != "*":
            plan.append((name, ONE))
        else:
            plan.append((name, CHECKED if (cls.__name__, name) in _HOLDS_NONE else MANY))
    return tuple(plan)


class _Plans(dict[type, FieldPlan]):
    """Node type -> its `FieldPlan`, worked out on first sight of the type."""

    def __missing__(self, cls: type) -> FieldPlan:
        plan = self[cls] = _plan_of(cls)
        return plan


PLANS = _Plans()
"""Node type -> the fields holding its children (`children`, and `Chunk._index`, which inlines it)."""


def children(node: ast.AST) -> list[ast.AST]:
    """Child nodes like `ast.iter_child_nodes`, minus contexts and operators, and faster (fields planned per type)."""
    out: list[ast.AST] = []
    for name, how in PLANS[type(node)]:
        value: Any = getattr(node, name, None)
        if how == MANY:
            out += value
        elif how == ONE:
            if value is not None:
                out.append(value)
        else:
            out += checked_children(value)
    return out


def checked_children(value: object) -> list[ast.AST]:
    """The nodes in a field value of unknown shape: the node itself, or a list's node items."""
    if isinstance(value, ast.AST):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, ast.AST)]
    return []


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


def walk(node: ast.AST) -> Iterator[ast.AST]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def walk_no_nested(nodes: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node under `nodes`, not descending into nested functions, lambdas or classes."""
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(children(node)):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                stack.append(child)


def int_constant(expr: ast.AST | None) -> int | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
        return expr.value
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = int_constant(expr.operand)
        return -inner if inner is not None else None
    return None


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw
    return None


def has_star_kwargs(call: ast.Call) -> bool:
    return any(kw.arg is None for kw in call.keywords)
