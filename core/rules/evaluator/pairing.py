"""Which expressions hold the hold-out labels and which the submission's predictions, told by their names.

EV018 and EV019 look for the labels and the predictions being paired in a way that lets a short submission be
scored on a subset. Evaluators name the two sides consistently (`labels`/`gold`/`y_true`/`references` against
`preds`/`predictions`/`submission`/`y_pred`); an expression is named by its variable, attribute, string key
(`df["label"]`) or, through a wrapping call (`list(...)`, `np.array(...)`), by its first argument.
"""

from __future__ import annotations

import ast
import re

from core.patterns import LazyPattern
from core.rules.evaluator.context import EvaluatorContext

__all__ = ["has_length_check", "is_label_name", "is_prediction_name", "name_of"]

_PREDICTION = LazyPattern(
    r"(?:^|_)(?:y_?pred\w*|y_?hat|preds?|predictions?|predicted|submissions?|submitted|sub|hyps?|hypothes[ei]s"
    r"|outputs?|responses?|generations?|completions?|guess(?:es)?|candidates?)(?:$|_|\d)",
    re.IGNORECASE,
)
_LABEL = LazyPattern(
    r"^y$|(?:^|_)(?:y_?true|y_?test|y_?val|labels?|gold|golds|truths?|ground_?truths?|gt|targets?|references?"
    r"|refs?|answers?|expected|solutions?|actuals?)(?:$|_|\d)",
    re.IGNORECASE,
)
_WRAPPERS = frozenset({"list", "tuple", "sorted", "iter", "numpy.array", "numpy.asarray", "enumerate"})


def name_of(ctx: EvaluatorContext, expr: ast.AST, depth: int = 0) -> str | None:
    """The name an expression goes by: `preds`, `self.labels` -> `labels`, `df["y_pred"]` -> `y_pred`."""
    if depth > 4:
        return None
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        if expr.attr in ("values", "keys", "items", "tolist", "to_numpy"):
            return name_of(ctx, expr.value, depth + 1)
        return expr.attr
    if isinstance(expr, ast.Subscript):
        key = ctx.string_value(expr.slice)
        return key if key is not None else name_of(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute) and not expr.args:
            return name_of(ctx, expr.func, depth + 1)  # preds.values(), labels.tolist()
        if ctx.call_name(expr) in _WRAPPERS and expr.args:
            return name_of(ctx, expr.args[0], depth + 1)
    return None


def is_prediction_name(name: str | None) -> bool:
    return name is not None and _PREDICTION.search(name) is not None and _LABEL.search(name) is None


def is_label_name(name: str | None) -> bool:
    return name is not None and _LABEL.search(name) is not None and _PREDICTION.search(name) is None


def _len_names(node: ast.AST, ctx: EvaluatorContext) -> set[str]:
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and ctx.call_name(sub) == "len" and sub.args:
            name = name_of(ctx, sub.args[0])
            if name is not None:
                names.add(name)
        elif isinstance(sub, ast.Compare):
            for side in (sub.left, *sub.comparators):
                if isinstance(side, ast.Call) and ctx.call_name(side) == "set" and side.args:
                    name = name_of(ctx, side.args[0])
                    if name is not None:
                        names.add(name)
    return names


def has_length_check(ctx: EvaluatorContext, at: ast.AST, names: set[str]) -> bool:
    """Some `assert`/`if` above `at` (in its function, or the module) compares the sizes of `names`'s sides:
    `assert len(preds) == len(labels)`, `if len(p) != len(y): sys.exit(...)`, `if set(p) != set(y): ...`."""
    scope = ctx.enclosing(at, ast.FunctionDef, ast.AsyncFunctionDef)
    if _checked_above(ctx, scope or ctx.tree, at, names):
        return True
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    # A helper scoring its parameters: checked when every caller checks the arguments it passes.
    params = [a.arg for a in (*scope.args.posonlyargs, *scope.args.args)]
    if not names & set(params):
        return False
    callers = [c for c in ctx.calls if isinstance(c.func, ast.Name) and c.func.id == scope.name]
    return bool(callers) and all(
        _checked_above(
            ctx,
            ctx.enclosing(c, ast.FunctionDef, ast.AsyncFunctionDef) or ctx.tree,
            c,
            {n for n in (name_of(ctx, a) for a in c.args) if n is not None},
        )
        for c in callers
    )


def _checked_above(ctx: EvaluatorContext, scope: ast.AST, at: ast.AST, names: set[str]) -> bool:
    line = ctx.start_of(at).line
    for node in ast.walk(scope):
        if isinstance(node, ast.Assert | ast.If | ast.While) and ctx.start_of(node).line <= line:
            test = node.test
            if isinstance(test, ast.Compare | ast.BoolOp | ast.UnaryOp) and _len_names(test, ctx) & names:
                return True
    return False
