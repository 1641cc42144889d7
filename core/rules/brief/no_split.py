"""## What it does
Checks that the `Measured by` line states how the data is split: a ratio (`80/20`, `70/15/15`), a named
split ("the held-out test set", "train/test"), or k-fold cross-validation ("5-fold CV").

## Why is this bad?
Scores measured on different splits are not comparable, and a candidate that quietly evaluates on its
training rows looks better than one that does not.

## Example
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn.csv with seed 42, printed as `auc: <value>`.
```

Use instead:
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 stratified split with seed 42,
printed as `auc: <value>`.
```

## Fix safety
The fix appends "an 80/20 split". That is a default, not necessarily the split your evaluator uses: check it.

## References
- SPEC §3.2 Brief rules
"""

from __future__ import annotations

from collections.abc import Iterator

from core.diagnostics import Diagnostic, Severity
from core.rules.brief.context import BriefContext

CODE = "BR003"
NAME = "no-split"
SEVERITY = Severity.ERROR
FIX_TITLE = "Append a split template"


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    protocol = ctx.protocol
    if protocol is None or protocol.split is not None:
        return
    yield ctx.diagnostic(
        CODE,
        NAME,
        SEVERITY,
        ctx.protocol_first_line(),
        "the `Measured by` line states no split (a ratio like 80/20, a named split, or k-fold)",
        ctx.append(FIX_TITLE, "an 80/20 split"),
    )
