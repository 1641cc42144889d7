"""## What it does
Checks that the `Measured by` line names the metric and its direction ("higher is better", "lower is
better", maximize, minimize).

## Why is this bad?
A campaign needs both to rank candidates: without the metric it cannot tell which printed number counts,
and without the direction a regression (a higher RMSE) can be delivered as the winner.

## Example
```markdown
Measured by kapso_datasets/houses.csv, an 80/20 split with seed 42.
```

Use instead:
```markdown
Measured by RMSE (lower is better) on kapso_datasets/houses.csv, an 80/20 split with seed 42,
printed as `rmse: <value>`.
```

## Fix safety
The fix adds the direction from `direction` in the config (default maximize) after the metric, and, when
the metric is missing, the name the evaluator prints (or `metric` from the config); with no name to give,
there is no fix for a missing metric. Check both.

## References
- SPEC §3.2 Brief rules; SPEC §2 `direction`
"""

from __future__ import annotations

from collections.abc import Iterator

from core.diagnostics import Diagnostic, Fix, Severity
from core.rules.brief.context import BriefContext

CODE = "BR005"
NAME = "no-metric"
SEVERITY = Severity.ERROR
FIX_TITLE = "Append the metric and its direction"


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    protocol = ctx.protocol
    if protocol is None or (protocol.metric is not None and protocol.direction is not None):
        return
    direction = ctx.direction_phrase()
    fix: Fix | None
    if protocol.metric is None:
        metric = ctx.metric_hint()
        message = "the `Measured by` line names no metric"
        if protocol.direction is None:
            message += " and no direction (higher/lower is better, maximize/minimize)"
            phrase = f"metric: {metric} ({direction})"
        else:
            phrase = f"metric: {metric}"
        fix = ctx.append(FIX_TITLE, phrase) if metric is not None else None
    else:
        message = f"the `Measured by` line gives no direction for `{protocol.metric.value}` (higher/lower is better)"
        if ctx.after_metric() is None:  # the metric ends the line: append, in order with the other appends
            fix = ctx.append("Append the direction", direction)
        else:
            end = protocol.metric.range.end
            fix = ctx.insert("Add the direction after the metric", end, f" ({direction})")
    yield ctx.diagnostic(CODE, NAME, SEVERITY, ctx.protocol_first_line(), message, fix)
