"""## What it does
Checks that the object written to result.json has the keys `evaluation_script_path`,
`evaluation_output` and `score`.

## Why is this bad?
Kapso reads these three keys; `proctor verify` compares `score` with the printed metric and checks that
`evaluation_script_path` exists. A result without them is a run without a record.

## Example
```python
json.dump({"auc": auc}, open("kapso_evaluation/result.json", "w"))
```

Use instead:
```python
json.dump({"evaluation_script_path": "kapso_evaluation/evaluate.py",
           "evaluation_output": f"auc: {auc:.4f}", "score": auc},
          open("kapso_evaluation/result.json", "w"))
```

## Fix safety
Safe: the values come from the metric print. The fix adds the missing keys to the dict literal: the script
path as a string, the score taken from an existing `score`-like key or the metric print's value, the output
as the printed metric line. It is written only when the variables it refers to are in scope (the result
still lints no worse).

## References
- README "The evaluator contract", item 2
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from core.diagnostics import Applicability, Diagnostic, Fix, Position, Range, Severity, TextEdit
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric import MetricInfo, metric_of
from core.rules.evaluator.results import REQUIRED_KEYS, dict_of, metric_line_expr, result_writes

CODE = "EV006"
NAME = "result-json-keys"
SEVERITY = Severity.ERROR
FIX_TITLE = "Add the missing keys to the result dict"
FIX_SAFETY = Applicability.SAFE

SCORE_LIKE = ("score", "metric", "value", "auc", "accuracy", "rmse", "f1")


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    seen: set[int] = set()
    for write in result_writes(ctx):
        found = dict_of(ctx, write.payload) if write.payload is not None else None
        if found is None:
            continue
        keys, literal = found
        missing = [k for k in REQUIRED_KEYS if k not in keys]
        if not missing or id(write.call) in seen:
            continue
        seen.add(id(write.call))
        names = ", ".join(f"`{k}`" for k in missing)
        fix = _fix(ctx, literal, missing) if literal is not None else None
        yield ctx.diagnostic(
            sys.modules[__name__], write.call, f"result.json is written without {names}", fix
        )


def _fix(ctx: EvaluatorContext, literal: ast.Dict | ast.Call, missing: list[str]) -> Fix | None:
    values = _values(ctx, literal)
    pieces: list[str] = []
    for key in missing:
        value = values.get(key)
        if value is None:
            return None
        pieces.append(f'"{key}": {value}' if isinstance(literal, ast.Dict) else f"{key}={value}")
    text = ", ".join(pieces)
    existing: list[ast.AST] = (
        [v for v in literal.values] if isinstance(literal, ast.Dict) else [*literal.args, *literal.keywords]
    )
    if existing:
        at = ctx.end_of(existing[-1])
        text = ", " + text
    else:
        end = ctx.end_of(literal)
        at = Position(end.line, end.character - 1)
    return Fix(FIX_TITLE, (TextEdit(ctx.relpath, Range(at, at), text),))


def _values(ctx: EvaluatorContext, literal: ast.Dict | ast.Call) -> dict[str, str]:
    present = _present(ctx, literal)
    info = metric_of(ctx)
    same_scope = info is not None and ctx.enclosing(
        info.call, ast.FunctionDef, ast.AsyncFunctionDef
    ) is ctx.enclosing(literal, ast.FunctionDef, ast.AsyncFunctionDef)
    score = _score_source(ctx, present, info, same_scope)
    out: dict[str, str] = {"evaluation_script_path": repr(ctx.relpath)}
    if score is not None:
        out["score"] = f"float({score})" if "score" not in present else score
        line = metric_line_expr(ctx, info) if info is not None and same_scope else None
        name = info.shape.name if info is not None else None
        if line is not None:
            out["evaluation_output"] = line
        elif name:
            out["evaluation_output"] = f'"{name}: " + str({score})'
        else:
            out["evaluation_output"] = f"str({score})"
    return out


def _present(ctx: EvaluatorContext, literal: ast.Dict | ast.Call) -> dict[str, ast.expr]:
    """The keys the literal already has (`{"k": v}` or `dict(k=v)`), with their values."""
    if isinstance(literal, ast.Call):
        return {kw.arg: kw.value for kw in literal.keywords if kw.arg}
    present: dict[str, ast.expr] = {}
    for k, v in zip(literal.keys, literal.values, strict=True):
        key = ctx.string_value(k) if k is not None else None
        if key is not None:
            present[key] = v
    return present


def _score_source(
    ctx: EvaluatorContext, present: dict[str, ast.expr], info: MetricInfo | None, same_scope: bool
) -> str | None:
    """The score's source text: a score-like key already present (the metric's own name second), else the
    value the metric line prints when it is printed in the same function."""
    candidates = [*SCORE_LIKE]
    if info is not None and info.shape.name:
        candidates.insert(1, info.shape.name)
    for key in candidates:
        if key in present:
            return ctx.source_of(present[key])
    hole = info.shape.value_hole if info is not None else None
    if same_scope and hole is not None and hole.expr is not None:
        return ctx.source_of(hole.expr)
    return None
