"""## What it does
Checks the evaluator's metric print against the score-line grammar: it must go to stdout, end the line,
use a name matching `[A-Za-z_][A-Za-z0-9_.-]*` and print a number.

## Why is this bad?
A metric line that goes to stderr, lacks its newline, has a name with spaces (`ROC AUC: 0.84`) or a value
with extra text (`auc: 0.84 (+/- 0.01)`) does not parse, so the run has no score even though a number was
printed.

## Example
```python
print(f"ROC AUC: {auc:.4f}", file=sys.stderr)
```

Use instead:
```python
print(f"roc_auc: {auc:.4f}")
```

## References
- README "The evaluator contract" (the metric on the last stdout line)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from core.diagnostics import Diagnostic, Severity
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric import metric_of

CODE = "EV004"
NAME = "malformed-metric-line"
SEVERITY = Severity.ERROR
FIX_TITLE = None


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    info = metric_of(ctx)
    if info is None or info.shape.manifest:
        return
    problems: list[str] = []
    if info.rendered.stream == "stderr":
        problems.append("it goes to stderr, but the score is read from stdout")
    end = info.rendered.end
    if end is not None and "\n" not in end:
        problems.append(f"`end={end!r}` leaves the line unterminated")
    if not info.shape.name_valid and info.shape.name is not None:
        problems.append(f"the name {info.shape.name!r} is outside the grammar `[A-Za-z_][A-Za-z0-9_.-]*`")
    if not info.shape.value_ok:
        problems.append("the value is not a bare number")
    if problems:
        yield ctx.diagnostic(
            sys.modules[__name__], info.call, "malformed metric line: " + "; ".join(problems)
        )
