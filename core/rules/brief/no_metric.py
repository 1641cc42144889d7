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
Unsafe: the metric and its direction are facts about the protocol. The fix writes the direction only when
`direction` is set in the config, and otherwise the blank `<direction: higher or lower is better>`, which
keeps this finding open until you fill it; a missing metric gets the name the evaluator prints (or `metric`
from the config), and no fix when there is no name to give.

## References
- README "`proctor check`: static rules"; README "Configuration" (`direction`)
"""

from __future__ import annotations

from collections.abc import Iterator

from core.brief import placeholder_for
from core.diagnostics import Applicability, Diagnostic, Fix, Severity
from core.rules.brief.context import BriefContext

CODE = "BR005"
NAME = "no-metric"
SEVERITY = Severity.ERROR
FIX_TITLE = "Append the metric and its direction"
FIX_SAFETY = Applicability.UNSAFE


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
    elif (blank := placeholder_for(protocol, "direction")) is not None:
        message = f"the direction is still the blank `{blank}`: say whether higher or lower is better"
        fix = None
    else:
        message = f"the `Measured by` line gives no direction for `{protocol.metric.value}` (higher/lower is better)"
        if ctx.after_metric() is None:  # the metric ends the line: append, in order with the other appends
            fix = ctx.append("Append the direction", direction)
        else:
            end = protocol.metric.range.end
            fix = ctx.insert("Add the direction after the metric", end, f" ({direction})")
    yield ctx.diagnostic(CODE, NAME, SEVERITY, ctx.protocol_first_line(), message, fix)
