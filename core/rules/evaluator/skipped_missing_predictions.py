"""## What it does
Flags evaluators that score only the items the submission answered: a loop that `continue`s when a
prediction is missing (`if key not in preds: continue`, `if pred is None: continue`, `except KeyError:
continue`), a loop or comprehension over the submission's own items that looks the labels up, a filter
keeping only the submitted ids, a set intersection of the two sides, or an inner `merge` of labels and
predictions.

## Why is this bad?
The score's denominator shrinks with the submission: a candidate that omits the items it gets wrong scores
higher than one that answers them all. The contract says a malformed submission is a clear failure, so a
missing prediction must fail the run (or count as wrong), never drop out of the score.

## Example
```python
scores = []
for key, label in labels.items():
    if key not in preds:
        continue
    scores.append(preds[key] == label)
accuracy = sum(scores) / len(scores)
```

Use instead:
```python
missing = [key for key in labels if key not in preds]
if missing:
    sys.exit(f"no prediction for {len(missing)} items, e.g. {missing[0]!r}")
scores = [preds[key] == label for key, label in labels.items()]
accuracy = sum(scores) / len(scores)
```

## References
- README "The evaluator contract", item 3 (a malformed submission is a clear failure)
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from core.diagnostics import Diagnostic, Severity
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.pairing import is_label_name, is_prediction_name, name_of

CODE = "EV018"
NAME = "skipped-missing-predictions"
SEVERITY = Severity.ERROR
FIX_TITLE = None

_LOOKUP_ERRORS = frozenset({"KeyError", "IndexError", "LookupError"})
_ACCUMULATE = frozenset({"append", "extend", "add"})
_SHRINKS = "so a submission that omits hard items scores higher"


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    rule = sys.modules[__name__]
    found = _findings(ctx)
    if len(found) > 1:
        found.sort(key=lambda pair: ctx.position(pair[0]))  # the kinds were judged one after another
    for node, message in found:
        yield ctx.diagnostic(rule, ctx.first_line_range(node), f"{message}, {_SHRINKS}")


def _findings(ctx: EvaluatorContext) -> list[tuple[ast.AST, str]]:
    """Each node of a kind this rule judges that skips missing predictions, with what it does."""
    judged: list[tuple[ast.AST, str | None]] = []
    for node in ctx.nodes_of(ast.If):
        assert isinstance(node, ast.If)
        judged.append((node, _skip_if(ctx, node)))
    for handler in ctx.handlers:
        judged.append((handler, _skip_handler(ctx, handler)))
    for loop in ctx.nodes_of(ast.For, ast.AsyncFor):
        assert isinstance(loop, ast.For | ast.AsyncFor)
        judged.append((loop, _loop_over_submission(ctx, loop)))
    for comprehension in ctx.nodes_of(ast.ListComp, ast.DictComp):
        assert isinstance(comprehension, ast.ListComp | ast.DictComp)
        if not _aggregated(ctx, comprehension):
            judged.append((comprehension, _comprehension(ctx, comprehension)))
    for binop in ctx.nodes_of(ast.BinOp):
        assert isinstance(binop, ast.BinOp)
        if isinstance(binop.op, ast.BitAnd):
            judged.append((binop, _intersection(ctx, binop.left, binop.right)))
    for call in ctx.method_calls("intersection", "merge"):
        judged.append((call, _call(ctx, call)))
    return [(node, message) for node, message in judged if message is not None]


# -- `if <missing>: continue` and `except KeyError: continue` --------------------------------------------------


def _enclosing_loop(ctx: EvaluatorContext, node: ast.AST) -> ast.For | ast.AsyncFor | ast.While | None:
    found = ctx.enclosing(node, ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)
    return found if isinstance(found, ast.For | ast.AsyncFor | ast.While) else None


def _only_skips(body: list[ast.stmt]) -> bool:
    """The block just moves on: `continue`, perhaps after a message, with no record a later check could use."""
    if not body or not isinstance(body[-1], ast.Continue):
        return False
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call | ast.Constant))
        for s in body[:-1]
    )


def _accumulates(loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    """The loop counts what it scores (`n += 1`, `scores.append(...)`): its denominator is what it kept."""
    for stmt in loop.body:
        if (
            isinstance(stmt, ast.AugAssign)
            and isinstance(stmt.op, ast.Add)
            and isinstance(stmt.value, ast.Constant)
            and stmt.value.value == 1
        ):
            return True
    for sub in ast.walk(ast.Module(body=loop.body, type_ignores=[])):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in _ACCUMULATE:
            return True
    return False


def _from_submission(ctx: EvaluatorContext, expr: ast.expr) -> bool:
    """`expr` is a prediction: named so, or read from the submission (`preds.get(k)`, `preds[k]`)."""
    if is_prediction_name(name_of(ctx, expr)):
        return True
    value = ctx.value_of(expr) if isinstance(expr, ast.Name) else expr
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get":
        return is_prediction_name(name_of(ctx, value.func.value))
    if isinstance(value, ast.Subscript):
        return is_prediction_name(name_of(ctx, value.value))
    return False


def _tests_missing(ctx: EvaluatorContext, test: ast.expr) -> bool:
    if isinstance(test, ast.BoolOp):
        return any(_tests_missing(ctx, value) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _from_submission(ctx, test.operand)
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, ast.NotIn):
        return is_prediction_name(name_of(ctx, right))
    empty = isinstance(right, ast.Constant) and right.value in (None, "")
    return isinstance(op, ast.Is | ast.Eq) and empty and _from_submission(ctx, test.left)


def _skip_if(ctx: EvaluatorContext, node: ast.If) -> str | None:
    if node.orelse or not _only_skips(node.body):
        return None
    loop = _enclosing_loop(ctx, node)
    if loop is None or not _tests_missing(ctx, node.test):
        return None
    if not _accumulates(loop):
        return None
    return "an item with no prediction is skipped (`continue`) and leaves the score"


def _skip_handler(ctx: EvaluatorContext, handler: ast.ExceptHandler) -> str | None:
    names: set[str] = set()
    if handler.type is not None:
        for sub in ast.walk(handler.type):
            if isinstance(sub, ast.Name):
                names.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                names.add(sub.attr)
    if not names & _LOOKUP_ERRORS or not _only_skips(handler.body):
        return None
    try_node = ctx.parents.get(handler)
    loop = _enclosing_loop(ctx, handler)
    if not isinstance(try_node, ast.Try) or loop is None or not _accumulates(loop):
        return None
    reads = any(
        isinstance(sub, ast.Subscript) and is_prediction_name(name_of(ctx, sub.value))
        for stmt in try_node.body
        for sub in ast.walk(stmt)
    )
    return "a missing prediction (`KeyError`) is skipped and leaves the score" if reads else None


# -- iterating the submission, filters, intersections, merges ------------------------------------------------


def _target_names(target: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _looks_up_labels(ctx: EvaluatorContext, nodes: list[ast.AST], keys: set[str]) -> bool:
    for node in nodes:
        for sub in ast.walk(node):
            index: ast.expr | None = None
            holder: ast.expr | None = None
            if isinstance(sub, ast.Subscript):
                index, holder = sub.slice, sub.value
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "get":
                index, holder = (sub.args[0] if sub.args else None), sub.func.value
            found = index is not None and holder is not None and bool(_target_names(index) & keys)
            if found and holder is not None and is_label_name(name_of(ctx, holder)):
                return True
    return False


def _loop_over_submission(ctx: EvaluatorContext, loop: ast.For | ast.AsyncFor) -> str | None:
    if not is_prediction_name(name_of(ctx, loop.iter)) or not _accumulates(loop):
        return None
    if not _looks_up_labels(ctx, list(loop.body), _target_names(loop.target)):
        return None
    return "the loop scores the items the submission contains, not every labelled item"


def _aggregated(ctx: EvaluatorContext, node: ast.AST) -> bool:
    """Summed on the spot (`sum([...])`): a numerator, not the list whose length is the denominator."""
    parent = ctx.parents.get(node)
    return isinstance(parent, ast.Call) and ctx.call_name(parent) in ("sum", "any", "all", "max", "min")


def _keeps_submitted(ctx: EvaluatorContext, condition: ast.expr) -> bool:
    """`k in preds`: a filter that keeps the items the submission has."""
    if not isinstance(condition, ast.Compare) or not any(isinstance(op, ast.In) for op in condition.ops):
        return False
    return any(is_prediction_name(name_of(ctx, c)) for c in condition.comparators)


def _comprehension(ctx: EvaluatorContext, node: ast.ListComp | ast.DictComp) -> str | None:
    for generator in node.generators:
        for condition in generator.ifs:
            if _keeps_submitted(ctx, condition):
                return "only the items that have a prediction are kept"
        if is_prediction_name(name_of(ctx, generator.iter)):
            elements: list[ast.AST] = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            if _looks_up_labels(ctx, elements, _target_names(generator.target)):
                return "the labels are looked up for the submission's items only, not every labelled item"
    return None


def _set_side(ctx: EvaluatorContext, expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Call) and ctx.call_name(expr) in ("set", "frozenset") and expr.args:
        return name_of(ctx, expr.args[0])
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "keys":
        return name_of(ctx, expr.func.value)
    return None


def _intersection(ctx: EvaluatorContext, left: ast.expr, right: ast.expr) -> str | None:
    names = [_set_side(ctx, left), _set_side(ctx, right)]
    if any(is_prediction_name(n) for n in names) and any(is_label_name(n) for n in names):
        return "only the ids both sides have are scored (an intersection)"
    return None


def _call(ctx: EvaluatorContext, call: ast.Call) -> str | None:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "intersection" and call.args:
        receiver = _set_side(ctx, func.value) or name_of(ctx, func.value)
        other = _set_side(ctx, call.args[0]) or name_of(ctx, call.args[0])
        pair = [receiver, other]
        if any(is_prediction_name(n) for n in pair) and any(is_label_name(n) for n in pair):
            return "only the ids both sides have are scored (an intersection)"
    if func.attr == "merge":
        how = next((kw.value for kw in call.keywords if kw.arg == "how"), None)
        if how is not None and ctx.string_value(how) not in ("inner", None):
            return None
        sides = [*call.args[:2]]
        if ctx.qualname(func.value) != "pandas":
            sides = [func.value, *call.args[:1]]
        names = [name_of(ctx, side) for side in sides]
        if any(is_prediction_name(n) for n in names) and any(is_label_name(n) for n in names):
            return "an inner `merge` drops the labelled items that have no prediction"
    return None
