"""## What it does
Checks that the brief has a `Measured by` line: the protocol every candidate is measured by (the data, the
split, the seed, the metric with its direction, and how the evaluator prints it).

## Why is this bad?
Without a stated protocol a campaign optimises whatever the evaluator happens to compute, the judge cannot
tell a candidate that weakens the measurement from one that improves the model, and `proctor init` has
nothing to build an evaluator from.

## Example
```markdown
# Goal
Predict which customers churn next month.
```

Use instead:
```markdown
# Goal
Predict which customers churn next month, with AUC above 0.85.

Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 stratified split with seed 42,
printed as `auc: <value>`.
```

## Fix safety
Unsafe: it writes a protocol on your behalf. The template takes the metric the evaluator prints, the data
directory and the evaluator's seed where they can be read, and leaves visible blanks (`<split: ...>`,
`<seed: ...>`, `<direction: ...>`, `<data>`) for everything else; the blanks keep BR002-BR005 open until you
fill them.

## References
- README "`proctor check`: static rules"; Kapso "Evaluation: Proposed, built from the brief"
"""

from __future__ import annotations

from collections.abc import Iterator

from core.diagnostics import Applicability, Diagnostic, Position, Severity
from core.rules.brief import no_seed, no_split
from core.rules.brief.context import BriefContext

CODE = "BR001"
NAME = "no-measured-by"
SEVERITY = Severity.ERROR
FIX_TITLE = "Insert a `Measured by` template"
FIX_SAFETY = Applicability.UNSAFE


def template(ctx: BriefContext) -> str:
    metric = ctx.metric_hint() or "<metric>"
    data = ctx.data_hint() or "<data>"
    seed = ctx.seed_hint()
    seed_text = f"seed {seed}" if seed is not None else no_seed.BLANK
    return (
        f"Measured by {metric} ({ctx.direction_phrase()}) on {data}, {no_split.BLANK} with "
        f"{seed_text}, printed as `{metric}: <value>`."
    )


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    if ctx.protocol is not None:
        return
    lines = ctx.lines
    goal = ctx.brief.goal
    line = template(ctx)
    if goal is not None:
        end = goal.range.end.line
        following = lines[end + 1] if end + 1 < len(lines) else ""
        text = "\n\n" + line + ("\n" if following.strip() else "")
        at = Position(end, len(lines[end]))
    else:
        last = len(lines) - 1
        if not ctx.text.strip():
            text, at = line + "\n", Position(0, 0)
        elif lines[last] == "":
            text = ("\n" if lines[last - 1].strip() else "") + line + "\n"
            at = Position(last, 0)
        else:
            text, at = "\n\n" + line + "\n", Position(last, len(lines[last]))
    yield ctx.diagnostic(
        CODE,
        NAME,
        SEVERITY,
        ctx.line_range(goal.range.start.line if goal is not None else 0),
        "the brief has no `Measured by` line stating the data, split, seed, metric and print format",
        ctx.insert(FIX_TITLE, at, text),
    )
