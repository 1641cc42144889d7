"""How a block of statements ends: by raising, an error exit, a non-zero return, or a helper that does
(the flow marks such branches as error branches, EV007 asks it of `except` handlers)."""

from __future__ import annotations

import ast
from typing import Protocol

from core.rules.evaluator.analysis.ast_utils import int_constant
from core.rules.evaluator.analysis.exit_status import EXIT_CALLS

__all__ = ["ExitResolver", "ends_abnormally", "is_definite_error_exit", "is_error_exit"]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


class ExitResolver(Protocol):
    """What deciding how a block ends asks of the document (the flow's source is one)."""

    @property
    def memo(self) -> dict[str, object]: ...

    def qualname(self, expr: ast.AST) -> str | None: ...

    def call_name(self, call: ast.Call) -> str | None: ...

    def local_function(self, call: ast.Call) -> FunctionNode | None: ...


def ends_abnormally(ctx: ExitResolver, body: list[ast.stmt]) -> bool:
    """The block ends by raising, exiting non-zero, returning a non-zero code, or calling a helper that does.

    A helper that (indirectly) calls itself counts as not ending abnormally on the recursive call; answers
    are memoized per document only when no such cycle was cut, so they do not depend on what was asked first.
    """
    memo = ctx.memo.get("ends_abnormally")
    if not isinstance(memo, dict):
        memo = ctx.memo["ends_abnormally"] = {}
    return _ends_abnormally(ctx, body, memo, set())[0]


def _ends_abnormally(
    ctx: ExitResolver, body: list[ast.stmt], memo: dict[int, bool], stack: set[int]
) -> tuple[bool, bool]:
    """(ends abnormally, a recursion cycle was cut while deciding)."""
    if not body:
        return False, False
    last = body[-1]
    if isinstance(last, ast.Raise):
        return _raise_is_abnormal(ctx, last), False
    if isinstance(last, ast.Return):
        code = int_constant(last.value)
        return code is not None and code != 0, False
    if isinstance(last, ast.If):
        if not last.orelse:
            return False, False
        body_ends, body_cut = _ends_abnormally(ctx, last.body, memo, stack)
        if not body_ends:
            return False, body_cut
        else_ends, else_cut = _ends_abnormally(ctx, last.orelse, memo, stack)
        return else_ends, body_cut or else_cut
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        return _call_ends_abnormally(ctx, last.value, memo, stack)
    return False, False


def _raise_is_abnormal(ctx: ExitResolver, stmt: ast.Raise) -> bool:
    """Any raise but `raise SystemExit` and `raise SystemExit(0)`-like exits."""
    exc = stmt.exc
    if exc is not None and ctx.qualname(exc) == "SystemExit":
        return False
    if isinstance(exc, ast.Call) and ctx.call_name(exc) == "SystemExit":
        return is_definite_error_exit(exc)
    return True


def _call_ends_abnormally(
    ctx: ExitResolver, call: ast.Call, memo: dict[int, bool], stack: set[int]
) -> tuple[bool, bool]:
    """An error exit, or a local helper whose body ends abnormally (memoized when no cycle was cut)."""
    if ctx.call_name(call) in EXIT_CALLS:
        return is_definite_error_exit(call), False
    func = ctx.local_function(call)
    if func is None:
        return False, False
    key = id(func)
    if key in memo:
        return memo[key], False
    if key in stack:
        return False, True
    stack.add(key)
    result, cut = _ends_abnormally(ctx, func.body, memo, stack)
    stack.discard(key)
    if not cut:
        memo[key] = result
    return result, cut


def is_error_exit(call: ast.Call) -> bool:
    """`sys.exit(1)`, `sys.exit("reason")`, `sys.exit(code)`: anything but no argument, 0, None or False."""
    if not call.args:
        return False
    arg = call.args[0]
    if isinstance(arg, ast.Constant):
        return arg.value not in (0, None, False)
    return True


def is_definite_error_exit(call: ast.Call) -> bool:
    """`sys.exit(1)` or `sys.exit("reason")`, but not `sys.exit(main())`, whose status is only known at run time."""
    if not call.args:
        return False
    arg = call.args[0]
    if isinstance(arg, ast.Constant):
        return arg.value not in (0, None, False)
    return isinstance(arg, ast.JoinedStr)
