"""## What it does
Compares the brief's metric (the name in its print format, and the metric it names) with the name the
evaluator prints on its metric line. The comparison ignores case and punctuation, knows common aliases
(`ROC AUC`, `roc_auc` and `AUROC` are `auc`; `F1 score` is `f1`; `log loss` is `cross-entropy`), and ignores
words that say where the metric was computed (`test_auc` is an AUC). The finding points at the print in
the evaluator.

## Why is this bad?
The brief is what people and the judge read; the evaluator is what the campaign optimises. When they name
different metrics, every score is reported under the wrong name and the campaign optimises something nobody
agreed to.

## Example
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 split with seed 42,
printed as `auc: <value>`.
```
```python
print(f"accuracy: {accuracy:.4f}")  # kapso_evaluation/evaluate.py
```

Use instead:
```python
print(f"auc: {auc:.4f}")
```

## References
- README "The evaluator contract" (the metric on the last stdout line); README "`proctor check`: static rules"
"""

from __future__ import annotations

from collections.abc import Iterator

from core.brief import same_metric
from core.diagnostics import Diagnostic, Related, Severity
from core.rules.brief.context import BriefContext

CODE = "BR008"
NAME = "metric-mismatch"
SEVERITY = Severity.ERROR
FIX_TITLE = None


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    protocol = ctx.protocol
    if protocol is None or ctx.evaluator_path is None:
        return
    printed = ctx.evaluator_print
    if printed is None:
        return
    expected = [
        name for name in (protocol.print_name, protocol.metric.value if protocol.metric else None) if name
    ]
    if not expected or any(same_metric(printed.name, name) for name in expected):
        return
    if protocol.print_format is not None and protocol.print_name_range is not None:
        where, stated = protocol.print_name_range, protocol.print_name
    else:
        assert protocol.metric is not None
        where, stated = protocol.metric.range, protocol.metric.value
    related = (Related(ctx.evaluator_path, printed.range, f"the evaluator prints `{printed.name}`"),)
    yield ctx.diagnostic(
        CODE,
        NAME,
        SEVERITY,
        where,
        f"the brief's metric `{stated}` differs from the name the evaluator prints: `{printed.name}`",
        related=related,
    )
