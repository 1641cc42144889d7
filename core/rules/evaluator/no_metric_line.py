"""## What it does
Checks that the evaluator prints its metric as a `name: value` line to stdout on the normal exit path.

## Why is this bad?
Proctor, Kapso and every campaign read the score from the last non-empty stdout line. An evaluator that only
writes the score to a file, prints it under another shape (`auc = 0.84`, a dict), or prints it only in a
function that never runs produces no score: every candidate looks like a failure.

## Example
```python
def main():
    auc = roc_auc_score(y, p)
    print({"auc": auc})
```

Use instead:
```python
def main():
    auc = roc_auc_score(y, p)
    print(f"auc: {auc:.4f}")
```

## References
- README "The evaluator contract", item 2 (score-line grammar)
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from core.diagnostics import Diagnostic, Severity
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric import STDOUT_WRITERS, flow_of, metric_of, render_output

CODE = "EV002"
NAME = "no-metric-line"
SEVERITY = Severity.ERROR
FIX_TITLE = None


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    if metric_of(ctx) is not None:
        return
    message = (
        "no `name: value` metric line is printed to stdout on the normal exit path "
        '(e.g. `print(f"auc: {auc:.4f}")` as the last output)'
    )
    last = _last_stdout_print(ctx)
    if last is None:
        yield ctx.diagnostic(sys.modules[__name__], ctx.file_range(), message)
    else:
        yield ctx.diagnostic(sys.modules[__name__], last, f"{message}: the last line printed here is not one")


def _last_stdout_print(ctx: EvaluatorContext) -> ast.Call | None:
    """The print that makes the last stdout line on the normal path: the finding is about it."""
    last: ast.Call | None = None
    for step in flow_of(ctx).steps:
        if step.normal and step.name in STDOUT_WRITERS:
            rendered = render_output(ctx, step.call, step.name)
            if rendered is not None and rendered.stream == "stdout":
                last = step.call
    return last
