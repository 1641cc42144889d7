"""## What it does
Flags, without rejecting, candidate code that patches scoring at run time: assignments or `setattr` (also
`mock.patch`) to attributes of modules the evaluator scores with (`sklearn.metrics`, `numpy`, the
evaluator's own modules), replacing `builtins.print` or `sys.stdout`, and `sys.modules[...] =`
assignments. It also flags start-up hooks (`sitecustomize.py`, `*.pth`, `conftest.py`) where they cannot
reach the evaluator.

## Why is this bad?
Whether a patch reaches the evaluator depends on what imports what at run time, which a static guard
cannot always decide. If it does, `sklearn.metrics.roc_auc_score` returns what the candidate wants and the
score is invented. It is reported so a reviewer looks, not rejected, because honest code sometimes
configures these modules.

## Example
```python
import sklearn.metrics

sklearn.metrics.roc_auc_score = lambda y_true, y_score: 0.99
```

Use instead:
```python
from sklearn.metrics import roc_auc_score


def validation_auc(model, x, y):
    return roc_auc_score(y, model.predict_proba(x)[:, 1])
```
Call the scoring functions; do not assign to them.

## What a reviewer should do
The candidate is scored and may win; read the flagged line (the detail names it) before you trust or
deliver it. If the patch can run inside the evaluator, treat the score as invalid and reject the candidate
by hand.

## References
- README "Integrity: fingerprints, guard, registry" (cases `patch-metrics`, `unreachable-hook`)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.findings import Finding
from core.integrity.patches import SCORING_ROOTS, patch_findings

CODE = "IN011"
NAME = "runtime-scoring-patch"
SEVERITY = FindingSeverity.FLAG
TITLE = "candidate code patches scoring at run time"

if TYPE_CHECKING:
    from core.integrity.context import GuardContext


def check(ctx: GuardContext) -> Iterator[Finding]:
    """Hooks that cannot reach the evaluator (from the hook analysis), then run-time patches in candidate
    Python files outside the suite."""
    yield from (finding for finding in ctx.hook_findings if finding.code == CODE)
    if ctx.provided_python:
        scoring = ctx.model.scoring_modules(SCORING_ROOTS)
        for path in ctx.provided_python:
            yield from patch_findings(path, ctx.new_text(path), scoring)
