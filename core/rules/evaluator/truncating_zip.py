"""## What it does
Flags labels and predictions paired with `zip()` without `strict=True` and with no length check before it.

## Why is this bad?
`zip()` stops at the shorter list. A submission with fewer predictions than there are labels is scored on
the items it answered, not failed: a candidate can drop the hard items and score higher. The contract says a
malformed submission is a clear failure.

## Example
```python
correct = sum(p == y for p, y in zip(preds, labels))
accuracy = correct / len(preds)
```

Use instead:
```python
if len(preds) != len(labels):
    sys.exit(f"expected {len(labels)} predictions, got {len(preds)}")
correct = sum(p == y for p, y in zip(preds, labels, strict=True))
accuracy = correct / len(labels)
```

## Fix safety
Unsafe: `strict=True` makes a short submission raise `ValueError` instead of being scored, which is the
point, but it changes behaviour (and needs Python 3.10 or later).

## References
- README "The evaluator contract", item 3 (a malformed submission is a clear failure)
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from core.diagnostics import Applicability, Diagnostic, Fix, Position, Range, Severity, TextEdit
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.pairing import has_length_check, is_label_name, is_prediction_name, name_of

CODE = "EV019"
NAME = "truncating-zip"
SEVERITY = Severity.ERROR
FIX_TITLE = "Add `strict=True`"
FIX_SAFETY = Applicability.UNSAFE


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    rule = sys.modules[__name__]
    for call, _name in ctx.calls_to({"zip"}):
        if any(kw.arg == "strict" for kw in call.keywords) or len(call.args) < 2:
            continue
        if any(isinstance(a, ast.Starred) for a in call.args):
            continue
        names = [name_of(ctx, arg) for arg in call.args]
        labels = [n for n in names if is_label_name(n)]
        preds = [n for n in names if is_prediction_name(n)]
        if not labels or not preds:
            continue
        if has_length_check(ctx, call, {n for n in names if n is not None}):
            continue
        message = (
            f"`zip({', '.join(n or '...' for n in names)})` stops at the shorter list: a submission missing "
            "items is scored on the rest"
        )
        yield ctx.diagnostic(rule, call, message, _fix(ctx, call))


def _fix(ctx: EvaluatorContext, call: ast.Call) -> Fix:
    last = call.args[-1] if not call.keywords else call.keywords[-1]
    at = ctx.end_of(last)
    edit = TextEdit(ctx.relpath, Range(at, Position(at.line, at.character)), ", strict=True")
    return Fix(FIX_TITLE, (edit,), applicability=Applicability.UNSAFE)
