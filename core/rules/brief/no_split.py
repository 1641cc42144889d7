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
Unsafe: Proctor cannot know the split, so the fix states none. It appends the visible blank
`<split: e.g. 80/20, or the file that holds the test set>`, which keeps this finding open until you replace
it with the split the evaluator really uses.

## References
- README "`proctor check`: static rules"
"""

from __future__ import annotations

from collections.abc import Iterator

from core.brief import placeholder_for
from core.diagnostics import Applicability, Diagnostic, Severity
from core.rules.brief.context import BriefContext

CODE = "BR003"
NAME = "no-split"
SEVERITY = Severity.ERROR
FIX_TITLE = "Append a `<split: ...>` blank to fill in"
FIX_SAFETY = Applicability.UNSAFE
BLANK = "<split: e.g. 80/20, or the file that holds the test set>"


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    protocol = ctx.protocol
    if protocol is None or protocol.split is not None:
        return
    blank = placeholder_for(protocol, "split")
    if blank is not None:
        message = f"the split is still the blank `{blank}`: replace it with the split the evaluator uses"
        yield ctx.diagnostic(CODE, NAME, SEVERITY, ctx.protocol_first_line(), message)
        return
    yield ctx.diagnostic(
        CODE,
        NAME,
        SEVERITY,
        ctx.protocol_first_line(),
        "the `Measured by` line states no split (a ratio like 80/20, a named split, or k-fold)",
        ctx.append(FIX_TITLE, BLANK),
    )
