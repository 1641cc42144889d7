"""## What it does
Checks that the Goal names a metric and a number to reach ("AUC above 0.85", "p95 latency under 120 ms").

## Why is this bad?
A goal without a target cannot be met or missed: a campaign has no stopping point, and nobody can say whether
the delivered candidate is good enough or merely better than the last one.

## Example
```markdown
# Goal
Improve the churn model.
```

Use instead:
```markdown
# Goal
Improve the churn model to an AUC above 0.85 on the held-out set.
```

## References
- README "`proctor check`: static rules"
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.brief import find_metric_names
from core.diagnostics import Diagnostic, Severity
from core.patterns import LazyPattern
from core.rules.brief.context import BriefContext

CODE = "BR009"
NAME = "goal-without-target"
SEVERITY = Severity.WARNING
FIX_TITLE = None

_NUMBER = LazyPattern(r"(?<![\w.\-])[-+]?(?:\d+(?:[.,]\d+)?|\.\d+)\s*%?")


def _names_metric(ctx: BriefContext, text: str) -> bool:
    if find_metric_names(text):
        return True
    protocol = ctx.protocol
    names = [protocol.print_name, protocol.metric.value if protocol.metric else None] if protocol else []
    return any(name and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) for name in names)


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    goal = ctx.brief.goal
    if goal is None:
        return
    has_number = _NUMBER.search(goal.text) is not None
    has_metric = _names_metric(ctx, goal.text)
    if has_number and has_metric:
        return
    missing = " and ".join(
        part for part, absent in (("a metric", not has_metric), ("a number", not has_number)) if absent
    )
    yield ctx.diagnostic(
        CODE,
        NAME,
        SEVERITY,
        ctx.line_range(goal.range.start.line),
        f'the Goal names no target: it lacks {missing} (e.g. "auc above 0.85")',
    )
