"""## What it does
Flags failures that do not fail the run: a bare `except:` or `except Exception:` that neither re-raises
nor exits non-zero, `sys.exit(0)` / `exit()` in an error branch, and `sys.exit(n)` with `n != 0` and no
printed reason.

## Why is this bad?
The contract says a broken candidate is a clear failure, not a low score. An evaluator that catches the
candidate's crash and prints `auc: 0.0`, or exits 0 after an error, makes a broken candidate look like a
weak one; one that exits 1 silently leaves nobody knowing why.

## Example
```python
try:
    preds = run_candidate(test)
except Exception:
    preds = [0.5] * len(test)
```

Use instead:
```python
try:
    preds = run_candidate(test)
except Exception as exc:
    print(f"candidate failed: {exc}", file=sys.stderr)
    sys.exit(1)
```

## References
- README "The evaluator contract", item 3 (fails loudly)
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator

from core.diagnostics import Diagnostic, Position, Range, Severity
from core.patterns import LazyPattern
from core.rules.evaluator.analysis.ast_utils import int_constant, walk_no_nested
from core.rules.evaluator.analysis.block_ends import ends_abnormally, is_error_exit
from core.rules.evaluator.analysis.exit_status import EXIT_CALLS
from core.rules.evaluator.context import EvaluatorContext

CODE = "EV012"
NAME = "swallowed-failure"
SEVERITY = Severity.ERROR
FIX_TITLE = None

ERROR_WORDS = LazyPattern(
    r"error|fail|invalid|malformed|missing|cannot|can't|could not|not found|crash|broken|exception|abort",
    re.IGNORECASE,
)
REASON_CALLS = (
    "print",
    "sys.stderr.write",
    "sys.stdout.write",
    "traceback.print_exc",
    "traceback.print_exception",
    "warnings.warn",
    "click.echo",
    "typer.echo",
)
FORWARDERS = frozenset({"put", "put_nowait", "send", "send_bytes", "set_exception"})
# Calls that print a reason themselves (argparse's help and usage, a traceback).
REASON_METHODS = frozenset({"print_help", "print_usage", "print_exc", "print_exception", "print_stack"})
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    rule = sys.modules[__name__]
    for handler in ctx.handlers:
        if not _broad(ctx, handler) or _never_runs(ctx, handler) or _forwards(handler):
            continue
        parent = ctx.parents.get(handler)
        if isinstance(parent, ast.Try) and all(
            isinstance(s, ast.Import | ast.ImportFrom) for s in parent.body
        ):
            continue
        if _loud(ctx, handler.body):
            continue
        caught = "bare `except:`" if handler.type is None else f"`except {ctx.source_of(handler.type)}:`"
        yield ctx.diagnostic(
            rule,
            _header(ctx, handler),
            f"{caught} swallows the failure: re-raise or print a reason and exit non-zero",
        )
    found = [(node, message) for node, message in _exits(ctx) if message is not None]
    if len(found) > 1:
        found.sort(key=lambda pair: ctx.position(pair[0]))  # calls and raises were judged apart
    for node, message in found:
        yield ctx.diagnostic(rule, node, message)


def _exits(ctx: EvaluatorContext) -> Iterator[tuple[ast.AST, str | None]]:
    """Each exit call and `raise SystemExit`, with what is wrong with it (None: nothing)."""
    for call, name in zip(ctx.calls, ctx.call_names, strict=True):
        if name in EXIT_CALLS:
            yield call, _exit_message(ctx, call, _exit_call_status(call))
    for node in ctx.nodes_of(ast.Raise):
        assert isinstance(node, ast.Raise)
        exit_node, code = _raised_exit(ctx, node)
        if exit_node is not None:
            yield exit_node, _exit_message(ctx, node, code)


def _exit_message(ctx: EvaluatorContext, node: ast.AST, code: int | None) -> str | None:
    if _never_runs(ctx, node):
        return None
    if code == 0:
        return (
            "exits 0 in an error branch: a failure must exit non-zero"
            if _in_error_branch(ctx, node)
            else None
        )
    if code is not None and not _reason_before(ctx, node):
        return f"exits with status {code} without printing a reason"
    return None


def _never_runs(ctx: EvaluatorContext, node: ast.AST) -> bool:
    """In a module-level function nothing calls or names (dead code cannot swallow a failure)."""
    func = ctx.enclosing(node, ast.FunctionDef, ast.AsyncFunctionDef)
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) or func.decorator_list:
        return False
    if ctx.enclosing(func, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) is not None:
        return False
    return func.name not in ctx.name_loads and not func.name.startswith("test")


def _forwards(handler: ast.ExceptHandler) -> bool:
    """The handler hands the exception to whoever waits for the result (`queue.put(exc)`, `conn.send(exc)`,
    `future.set_exception(exc)`): a measurement in a child process reports its failure to the parent."""
    if handler.name is None:
        return False
    for node in walk_no_nested(handler.body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in FORWARDERS
            and any(isinstance(n, ast.Name) and n.id == handler.name for a in node.args for n in ast.walk(a))
        ):
            return True
    return False


def _broad(ctx: EvaluatorContext, handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(ctx.qualname(t) in ("Exception", "BaseException") for t in types)


def _header(ctx: EvaluatorContext, handler: ast.ExceptHandler) -> Range:
    """The `except ...:` header only, not the handler body."""
    start = ctx.start_of(handler)
    if handler.type is not None:
        end = ctx.end_of(handler.type)
        line = ctx.lines[end.line]
        colon = line.find(":", end.character)
        end = Position(end.line, colon + 1 if colon >= 0 else end.character)
    else:
        end = Position(start.line, start.character + len("except:"))
    return Range(start, end)


def _loud(ctx: EvaluatorContext, body: list[ast.stmt]) -> bool:
    for node in walk_no_nested(body):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Return):
            code = int_constant(node.value)
            if code is not None and code != 0:
                return True
        if isinstance(node, ast.Call):
            name = ctx.call_name(node)
            if name in EXIT_CALLS and is_error_exit(node):
                return True
            func = ctx.local_function(node)
            if func is not None and ends_abnormally(ctx, func.body):
                return True
    return False


def _raised_exit(ctx: EvaluatorContext, node: ast.Raise) -> tuple[ast.AST | None, int | None]:
    """(the raise, its constant status or None when not constant) for `raise SystemExit`."""
    if node.exc is not None:
        exc = node.exc
        if ctx.qualname(exc) == "SystemExit":
            return node, 0
        if isinstance(exc, ast.Call) and ctx.call_name(exc) == "SystemExit":
            return node, _system_exit_status(exc)
    return None, None


def _exit_call_status(call: ast.Call) -> int | None:
    """`sys.exit()`, `sys.exit(None)`, `sys.exit(False)`: 0; `sys.exit(3)`: 3; anything else unknown."""
    if not call.args:
        return 0
    arg = call.args[0]
    if isinstance(arg, ast.Constant):
        if arg.value is None or arg.value is False:
            return 0
        if isinstance(arg.value, int):
            return int(arg.value)
    return None


def _system_exit_status(exc: ast.Call) -> int | None:
    """`SystemExit()` and `SystemExit(None)`: 0; `SystemExit(-1)`: -1; anything else unknown."""
    if not exc.args:
        return 0
    if isinstance(exc.args[0], ast.Constant) and exc.args[0].value is None:
        return 0
    return int_constant(exc.args[0])


def _block_of(ctx: EvaluatorContext, node: ast.AST) -> tuple[list[ast.stmt], ast.stmt] | None:
    stmt = ctx.statement_of(node)
    if stmt is None:
        return None
    parent = ctx.parents.get(stmt)
    if parent is None:
        return None
    for field in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and stmt in block:
            return block, stmt
    return None


def _in_error_branch(ctx: EvaluatorContext, node: ast.AST) -> bool:
    found = _block_of(ctx, node)
    if found is None:
        return False
    block, stmt = found
    parent = ctx.parents.get(stmt)
    if isinstance(parent, ast.ExceptHandler):
        return True
    if not isinstance(parent, ast.If | ast.For | ast.While | ast.With):
        return False
    if isinstance(parent, ast.If) and "returncode" in ctx.source_of(parent.test):
        return True
    for earlier in block[: block.index(stmt)]:
        for call in (n for n in walk_no_nested([earlier]) if isinstance(n, ast.Call)):
            if _error_message(ctx, call):
                return True
    return False


def _error_message(ctx: EvaluatorContext, call: ast.Call) -> bool:
    name = ctx.call_name(call)
    if name == "sys.stderr.write" or (
        name is not None
        and name.startswith("logging.")
        and name.rsplit(".", 1)[-1] in ("error", "exception", "critical")
    ):
        return True
    if name == "print":
        for kw in call.keywords:
            if kw.arg == "file" and ctx.qualname(kw.value) == "sys.stderr":
                return True
        return any(ERROR_WORDS.search(ctx.source_of(a)) for a in call.args)
    return isinstance(call.func, ast.Attribute) and call.func.attr in ("error", "exception", "critical")


def _reason_before(ctx: EvaluatorContext, node: ast.AST) -> bool:
    """A reason is printed just before the exit: earlier in its block, just before the `if` it is in, or by
    the call that decides it (`if not evaluate(): sys.exit(1)`, or `ok = evaluate()` right before the `if`)."""
    found = _block_of(ctx, node)
    if found is None:
        return False
    block, stmt = found
    earlier = block[: block.index(stmt)]
    calls: list[ast.AST] = []
    parent = ctx.parents.get(stmt)
    if isinstance(parent, ast.If) and parent.body is block:
        calls.extend(ast.walk(parent.test))
        outer = _block_of(ctx, parent)
        if outer is not None:
            before_if = outer[0][: outer[0].index(outer[1])][-1:]
            earlier = [*(s for s in before_if if isinstance(s, ast.Expr | ast.Assign)), *earlier]
    calls.extend(walk_no_nested(earlier))
    return any(isinstance(call, ast.Call) and _prints_reason(ctx, call) for call in calls)


def _prints_reason(ctx: EvaluatorContext, call: ast.Call) -> bool:
    name = ctx.call_name(call)
    if name in REASON_CALLS or (name or "").startswith("logging."):
        return True
    if isinstance(call.func, ast.Attribute) and call.func.attr in LOG_METHODS | REASON_METHODS:
        return True
    func = ctx.local_function(call)
    if func is not None:
        return any(
            isinstance(n, ast.Call)
            and (ctx.call_name(n) in REASON_CALLS or (ctx.call_name(n) or "").startswith("logging."))
            for n in walk_no_nested(func.body)
        )
    return False
