"""## What it does
Checks that the `Measured by` line names the data the evaluator measures on: a workspace path such as
`kapso_datasets/churn.csv` or a dataset name such as "the CIFAR-10 dataset".

## Why is this bad?
A protocol without data lets a candidate (or a re-written evaluator) measure on an easier or smaller set and
report a better score for the same model.

## Example
```markdown
Measured by AUC (higher is better), an 80/20 split with seed 42, printed as `auc: <value>`.
```

Use instead:
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 split with seed 42,
printed as `auc: <value>`.
```

## Fix safety
Unsafe: the data is a fact about the protocol. The fix adds `on <data>` after the metric (or at the end of
the line) with the workspace's data directory, and there is no fix when the workspace has none. Name the
exact file before relying on it.

## References
- README "`proctor check`: static rules"
"""

from __future__ import annotations

from collections.abc import Iterator

from core.diagnostics import Applicability, Diagnostic, Severity
from core.rules.brief.context import BriefContext

CODE = "BR002"
NAME = "no-data"
SEVERITY = Severity.ERROR
FIX_TITLE = "Append `on <data>`"
FIX_SAFETY = Applicability.UNSAFE


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    protocol = ctx.protocol
    if protocol is None or protocol.data is not None:
        return
    data = ctx.data_hint()
    after_metric = ctx.after_metric()
    fix = None
    if data is not None and after_metric is not None:
        fix = ctx.insert(FIX_TITLE, after_metric, f" on {data}")
    elif data is not None:
        fix = ctx.append(FIX_TITLE, f"on {data}")
    yield ctx.diagnostic(
        CODE,
        NAME,
        SEVERITY,
        ctx.protocol_first_line(),
        "the `Measured by` line names no data (a workspace path or a dataset name)",
        fix,
    )
