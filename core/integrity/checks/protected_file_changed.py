"""## What it does
Rejects a candidate that changes the content of a protected file: any file of the evaluation suite
(`kapso_evaluation/` by default) whose bytes differ from the baseline's.

## Why is this bad?
The suite is the ruler the candidate is measured with. A candidate that edits `evaluate.py` or a metric
helper can print any score it likes, and every comparison with the baseline or other candidates becomes
meaningless. Proctor overlays the trusted suite before a run anyway; the rejection says that the candidate
tried, so its work is not trusted.

## Example
```diff
--- a/kapso_evaluation/evaluate.py
+++ b/kapso_evaluation/evaluate.py
-print(f"auc: {roc_auc_score(y_true, y_score):.4f}")
+print(f"auc: {min(1.0, roc_auc_score(y_true, y_score) + 0.05):.4f}")
```

Use instead:
```diff
--- a/model/train.py
+++ b/model/train.py
-model = LogisticRegression()
+model = LogisticRegression(C=0.5, class_weight="balanced")
```
Improve the code the suite measures, outside the suite.

## What a reviewer should do
Read the finding's path and diff it against the baseline (`git diff <baseline> <candidate> -- <path>`). If
the evaluator itself needs a change, make it as a maintainer, outside any campaign, and register the new
version (`proctor registry register --provenance maintainer_built --reason ...`): scores of two evaluator
versions are never compared.

## References
- README "Integrity: fingerprints, guard, registry"
- `proctor guard --baseline REF --candidate REF` prints the findings
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.findings import Finding, reject

CODE = "IN001"
NAME = "protected-file-changed"
SEVERITY = FindingSeverity.REJECT
TITLE = "protected file changed"

if TYPE_CHECKING:
    from core.integrity.context import GuardContext


def check(ctx: GuardContext) -> Iterator[Finding]:
    for change in ctx.in_zone("suite"):
        if change.protected_file and change.new is not None and change.new.kind == "file" and change.content:
            yield reject(CODE, change.path, "a protected file's content changed")
