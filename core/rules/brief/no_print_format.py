"""## What it does
Checks that the `Measured by` line says how the evaluator prints the score: a `name: value` line, as in
"printed as `auc: <value>`".

## Why is this bad?
The score is read from the evaluator's last stdout line (`name: value`). When the brief does not pin the
name, an evaluator that prints `accuracy` for an AUC task, or a prettier line that no parser reads,
passes review and silently breaks every campaign.

## Example
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 split with seed 42.
```

Use instead:
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 split with seed 42,
printed as `auc: <value>`.
```

## Fix safety
Unsafe: it writes the protocol's print format for you. The fix appends "printed as `<name>: <value>`" with
the name the evaluator prints when it agrees with the brief's metric, else the brief's metric as a name;
with no metric anywhere there is no fix.

## References
- README "The evaluator contract" (the metric on the last stdout line); README "`proctor check`: static rules"
"""

from __future__ import annotations

from collections.abc import Iterator

from core.diagnostics import Applicability, Diagnostic, Severity
from core.rules.brief.context import BriefContext

CODE = "BR006"
NAME = "no-print-format"
SEVERITY = Severity.ERROR
FIX_TITLE = "Append a print format"
FIX_SAFETY = Applicability.UNSAFE


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    protocol = ctx.protocol
    if protocol is None or protocol.print_format is not None:
        return
    name = ctx.metric_hint()
    fix = ctx.append(FIX_TITLE, f"printed as `{name}: <value>`") if name is not None else None
    yield ctx.diagnostic(
        CODE,
        NAME,
        SEVERITY,
        ctx.protocol_first_line(),
        "the `Measured by` line gives no print format (`name: value`, e.g. printed as `auc: <value>`)",
        fix,
    )
