"""## What it does
Checks that the `Measured by` line fixes the random seed of the split (`seed 42`, `seed=42`,
`random_state=42`).

## Why is this bad?
With an unstated seed, two runs of the same candidate can land on different rows, so score differences are
partly noise, and a candidate can pick the seed that flatters it.

## Example
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 split, printed as `auc: <value>`.
```

Use instead:
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 split with seed 42,
printed as `auc: <value>`.
```

## Fix safety
Unsafe: a seed is a fact about the protocol. The fix appends `seed <n>` only with the seed the evaluator
already sets (`random_state=`, `seed=`); otherwise it appends the blank `<seed: the seed the evaluator
uses>`, which keeps this finding open until you fill it.

## References
- README "`proctor check`: static rules"
"""

from __future__ import annotations

from collections.abc import Iterator

from core.brief import placeholder_for
from core.diagnostics import Applicability, Diagnostic, Severity
from core.rules.brief.context import BriefContext

CODE = "BR004"
NAME = "no-seed"
SEVERITY = Severity.ERROR
FIX_TITLE = "Append `seed <n>`"
FIX_SAFETY = Applicability.UNSAFE
BLANK = "<seed: the seed the evaluator uses>"


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    protocol = ctx.protocol
    if protocol is None or protocol.seed is not None or protocol.fixed_split:
        return
    blank = placeholder_for(protocol, "seed")
    if blank is not None:
        message = f"the seed is still the blank `{blank}`: replace it with the seed the evaluator uses"
        yield ctx.diagnostic(CODE, NAME, SEVERITY, ctx.protocol_first_line(), message)
        return
    seed = ctx.seed_hint()
    yield ctx.diagnostic(
        CODE,
        NAME,
        SEVERITY,
        ctx.protocol_first_line(),
        "the `Measured by` line fixes no seed (`seed 42`, `seed=42` or `random_state=42`)",
        ctx.append(FIX_TITLE, BLANK if seed is None else f"seed {seed}"),
    )
