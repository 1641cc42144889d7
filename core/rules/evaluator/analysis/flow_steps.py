"""What the execution-order walk (`flow.Flow`) records: each call as a `Step` with where it sits, the
`Flags` of the statement being walked, and the walk's state before a top-level statement (`Boundary`)."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import NamedTuple

from core.rules.evaluator.analysis.ast_utils import children
from core.rules.evaluator.analysis.exit_status import StatusSnapshot

__all__ = ["Boundary", "Branch", "Flags", "Step", "exclusive", "post_order"]

Branch = tuple[int, int]  # (id of the If/Try/Match node or call site, branch index or frame number)


class Step(NamedTuple):
    call: ast.Call
    name: str | None
    in_loop: bool
    in_handler: bool
    error_branch: bool
    in_finally: bool
    path: tuple[Branch, ...]
    order: int

    @property
    def normal(self) -> bool:
        """On the normal exit path: not in an `except` handler and not in a branch that exits with an error."""
        return not (self.in_handler or self.error_branch)


class Flags(NamedTuple):
    """Where the walk is: what every step it records there carries."""

    in_loop: bool = False
    in_handler: bool = False
    error_branch: bool = False
    in_finally: bool = False
    path: tuple[Branch, ...] = ()


class Boundary(NamedTuple):
    """The walk's state just before a top-level statement (`stmt`; None: after the last one)."""

    stmt: ast.stmt | None
    steps: int  # len(steps)
    entered: int  # len(Flow._entered)
    frames: int
    statuses: StatusSnapshot
    mark: int  # the caller's mark (how many lookups its recording view had recorded)


def post_order(expr: ast.AST, kids: Mapping[int, list[ast.AST]]) -> list[ast.AST]:
    """Nodes of an expression with arguments before the call that uses them; lambdas are not entered."""
    out: list[ast.AST] = []
    stack: list[tuple[ast.AST, bool]] = [(expr, False)]
    while stack:
        node, done = stack.pop()
        if done:
            out.append(node)
            continue
        stack.append((node, True))
        if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        node_kids = kids.get(id(node))
        for child in reversed(node_kids if node_kids is not None else children(node)):
            stack.append((child, False))
    return out


def exclusive(a: Step, b: Step) -> bool:
    """The two steps sit in different branches of the same `if`/`match`/`try` in the same invocation."""
    for left, right in zip(a.path, b.path, strict=False):
        if left == right:
            continue
        return left[0] == right[0] and left[1] >= 0 and right[1] >= 0
    return False
