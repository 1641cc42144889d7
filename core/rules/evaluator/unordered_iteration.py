"""## What it does
Flags directory listings (`os.listdir`, `os.scandir`, `glob.glob`, `glob.iglob`, `Path.iterdir`,
`Path.glob`, `Path.rglob`) and sets that are iterated without `sorted()`.

## Why is this bad?
Directory order depends on the file system and set order on hashing (string hashes change per process).
Pairing predictions with labels, or summing floats, in a different order gives a different score on
another machine or another run.

## Example
```python
for name in os.listdir(data_dir):
    rows.append(load(name))
```

Use instead:
```python
for name in sorted(os.listdir(data_dir)):
    rows.append(load(name))
```

## Fix safety
Safe for file listings (`os.listdir`, `glob`, `Path.iterdir/glob`): names always compare. Unsafe for a
`set`: `sorted()` raises `TypeError` if the items cannot be compared (a set mixing strings and numbers).

## References
- README "The evaluator contract", item 4 (deterministic)
- https://docs.python.org/3/library/os.html#os.listdir ("in arbitrary order")
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import replace

from core.diagnostics import Applicability, Diagnostic, Fix, Range, Severity, TextEdit
from core.rules.evaluator.analysis.flow import EXIT_CALLS
from core.rules.evaluator.context import EvaluatorContext

CODE = "EV013"
NAME = "unordered-iteration"
SEVERITY = Severity.WARNING
FIX_TITLE = "Wrap in `sorted()`"
FIX_SAFETY = Applicability.SAFE

LISTINGS = frozenset({"os.listdir", "os.scandir", "glob.glob", "glob.iglob"})
PATH_METHODS = frozenset({"iterdir", "glob", "rglob"})
ORDER_FREE = frozenset(
    {"sorted", "len", "set", "frozenset", "any", "all", "bool", "max", "min", "sum", "collections.Counter"}
)
# Calls whose result keeps the order of their iterable argument: order-free when their result is.
PASS_THROUGH = frozenset({"map", "filter", "list", "tuple", "iter", "reversed", "enumerate"})
ITERATING = frozenset(
    {
        "list",
        "tuple",
        "enumerate",
        "zip",
        "iter",
        "next",
        "numpy.array",
        "numpy.asarray",
        "numpy.fromiter",
        "pandas.Series",
        "pandas.concat",
        "map",
        "filter",
    }
)


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    rule = sys.modules[__name__]
    for call, name in zip(ctx.calls, ctx.call_names, strict=True):
        label = _listing(call, name)
        if label is None or _order_free(ctx, call):
            continue
        yield ctx.diagnostic(
            rule,
            call,
            f"`{label}()` returns entries in file-system order, which differs between machines",
            _wrap(ctx, call),
        )
    found = [
        (node, number, iterable)
        for node, number, iterable in _iterated(ctx)
        if _is_set(ctx, iterable) and not _order_free(ctx, iterable)
    ]
    if len(found) > 1:
        found.sort(key=lambda hit: (ctx.position(hit[0]), hit[1]))  # the kinds were judged one after another
    for _, _, iterable in found:
        yield ctx.diagnostic(
            rule,
            iterable,
            "iterating a set: its order depends on hashing and differs between runs",
            _unsafe(_wrap(ctx, iterable)),
        )


def _unsafe(fix: Fix | None) -> Fix | None:
    """`sorted()` of a set can raise on items that do not compare: not a fix to apply unasked."""
    return None if fix is None else replace(fix, applicability=Applicability.UNSAFE)


def _listing(call: ast.Call, name: str | None) -> str | None:
    """The listing `call` (named `name`) makes, if any."""
    if name in LISTINGS:
        return name
    if name is None and isinstance(call.func, ast.Attribute) and call.func.attr in PATH_METHODS:
        if call.func.attr != "iterdir" and not call.args:
            return None
        return f"Path.{call.func.attr}"
    if name is not None and name.startswith("pathlib.") and name.rsplit(".", 1)[-1] in PATH_METHODS:
        return f"Path.{name.rsplit('.', 1)[-1]}"
    return None


def _order_free(ctx: EvaluatorContext, node: ast.AST, depth: int = 0, assigned: bool = True) -> bool:
    """The listing is sorted, counted, tested for emptiness or membership, or assigned and sorted later;
    or it feeds a comprehension, `map()` or `filter()` whose result is one of those (or a set)."""
    parent = ctx.parents.get(node)
    if depth > 16:
        return False
    if isinstance(parent, ast.For | ast.AsyncFor) and parent.iter is node and not parent.orelse:
        return all(_order_free_statement(ctx, stmt) for stmt in parent.body)
    if _only_tested(parent, node):
        return True
    consumed = _through_consumer(ctx, parent, node, depth)
    if consumed is not None:
        return consumed
    if (
        assigned
        and isinstance(parent, ast.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
    ):
        return _sorted_later(ctx, parent.targets[0].id)
    return False


def _only_tested(parent: ast.AST | None, node: ast.AST) -> bool:
    """`x in listing`, `not listing`, `if listing:`: the order is never looked at."""
    if isinstance(parent, ast.Compare):
        return node in parent.comparators and all(isinstance(op, ast.In | ast.NotIn) for op in parent.ops)
    if isinstance(parent, ast.UnaryOp):
        return isinstance(parent.op, ast.Not)
    return isinstance(parent, ast.If | ast.While) and parent.test is node


def _through_consumer(
    ctx: EvaluatorContext, parent: ast.AST | None, node: ast.AST, depth: int
) -> bool | None:
    """When `node` feeds a call or a comprehension: whether its order survives there (None: it feeds neither)."""
    if isinstance(parent, ast.Call) and node in parent.args:
        name = ctx.call_name(parent)
        if name in ORDER_FREE:
            return True
        return name in PASS_THROUGH and _order_free(ctx, parent, depth + 1, assigned=False)
    if isinstance(parent, ast.comprehension) and parent.iter is node:
        comprehension = ctx.parents.get(parent)
        if isinstance(comprehension, ast.SetComp):
            return True  # the set's own order is judged where the set is iterated
        if isinstance(comprehension, ast.ListComp | ast.GeneratorExp | ast.DictComp):
            return _order_free(ctx, comprehension, depth + 1, assigned=False)
        return False
    return None


# Effects whose result does not depend on the order they happen in: file copies and removals, messages.
FILE_EFFECTS = frozenset(
    {
        "shutil.copy",
        "shutil.copy2",
        "shutil.copyfile",
        "shutil.copytree",
        "shutil.move",
        "shutil.rmtree",
        "os.remove",
        "os.unlink",
        "os.rename",
        "os.replace",
        "os.makedirs",
        "os.chmod",
        "os.symlink",
    }
)
PATH_EFFECTS = frozenset({"unlink", "mkdir", "chmod", "rename", "replace", "touch", "symlink_to", "rmdir"})
MESSAGE_CALLS = frozenset({"print", "sys.stderr.write", "warnings.warn"})


def _order_free_statement(ctx: EvaluatorContext, stmt: ast.stmt) -> bool:
    """A loop-body statement whose effect is the same whatever order the loop runs in: counting into an int
    (`n += 1`, `size += len(...)`), copying, moving or deleting files, a message, `continue`/`pass`, a
    failure (raise or exit), or an `if` made only of those."""
    if isinstance(stmt, ast.Pass | ast.Continue | ast.Break | ast.Raise):
        return not isinstance(stmt, ast.Break)
    if isinstance(stmt, ast.AugAssign):
        value = stmt.value
        counted = (isinstance(value, ast.Constant) and isinstance(value.value, int)) or (
            isinstance(value, ast.Call) and ctx.call_name(value) == "len"
        )
        return isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name) and counted
    if isinstance(stmt, ast.If):
        return all(_order_free_statement(ctx, s) for s in (*stmt.body, *stmt.orelse))
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        name = ctx.call_name(call)
        if name in FILE_EFFECTS or name in EXIT_CALLS or (name or "").startswith("logging."):
            return True
        if name in MESSAGE_CALLS:
            return name != "print" or any(kw.arg == "file" for kw in call.keywords)
        return isinstance(call.func, ast.Attribute) and call.func.attr in PATH_EFFECTS
    return False


def _sorted_later(ctx: EvaluatorContext, name: str) -> bool:
    uses = ctx.name_loads.get(name, [])
    if not uses:
        return True
    for use in uses:
        parent = ctx.parents.get(use)
        if isinstance(parent, ast.Attribute) and parent.attr == "sort":
            return True
    return all(_order_free(ctx, use) for use in uses)


def _iterated(ctx: EvaluatorContext) -> Iterator[tuple[ast.AST, int, ast.expr]]:
    """(the node that iterates, which of its iterables, the iterable) for loops, comprehensions, calls that
    iterate their arguments, and `*unpacking` into a display or a call."""
    for loop in ctx.nodes_of(ast.For, ast.AsyncFor, ast.comprehension):
        assert isinstance(loop, ast.For | ast.AsyncFor | ast.comprehension)
        yield loop, 0, loop.iter
    for call, name in zip(ctx.calls, ctx.call_names, strict=True):
        if name in ITERATING:
            yield from ((call, n, a) for n, a in enumerate(call.args) if not isinstance(a, ast.Starred))
        elif isinstance(call.func, ast.Attribute) and call.func.attr in ("join", "extend") and call.args:
            yield call, 0, call.args[0]
    for starred in ctx.nodes_of(ast.Starred):
        assert isinstance(starred, ast.Starred)
        if isinstance(ctx.parents.get(starred), ast.List | ast.Tuple | ast.Call):
            yield starred, 0, starred.value


def _is_set(ctx: EvaluatorContext, expr: ast.AST | None, depth: int = 0) -> bool:
    """A set display, `set()`/`frozenset()`, set algebra, or a name bound to one (by scope)."""
    if expr is None or depth > 8:
        return False
    if isinstance(expr, ast.Set | ast.SetComp):
        return True
    if isinstance(expr, ast.Call) and ctx.call_name(expr) in ("set", "frozenset"):
        return True
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr | ast.BitAnd | ast.Sub | ast.BitXor):
        return _is_set(ctx, expr.left, depth + 1) and _is_set(ctx, expr.right, depth + 1)
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr in ("union", "intersection", "difference", "symmetric_difference")
    ):
        return _is_set(ctx, expr.func.value, depth + 1)
    return isinstance(expr, ast.Name) and _is_set(ctx, ctx.value_of(expr), depth + 1)


def _wrap(ctx: EvaluatorContext, node: ast.AST) -> Fix:
    rng = ctx.range_of(node)
    return Fix(
        FIX_TITLE,
        (
            TextEdit(ctx.relpath, Range(rng.start, rng.start), "sorted("),
            TextEdit(ctx.relpath, Range(rng.end, rng.end), ")"),
        ),
    )
