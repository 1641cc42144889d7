"""## What it does
Rejects a candidate that adds or changes, outside the suite, a file that would run inside the evaluator's
process: a module or package on the evaluator's effective `sys.path` whose name shadows a module the
evaluator imports (stdlib, third-party or one of the suite's own), a `sitecustomize.py`,
`usercustomize.py` or `*.pth` on that path, or a `conftest.py` (or pytest configuration) when the
evaluator runs pytest. The path is modelled from the command: `python -m` and `-c` put the workspace root
first, `PYTHONPATH` entries follow, and whatever the suite adds to `sys.path`.

## Why is this bad?
The suite is untouched, yet the evaluator imports the candidate's `json.py`, `sklearn/` or
`sitecustomize.py` before its own modules and runs it with the evaluator's rights: the metric can be
replaced without a protected file changing.

## Example
```python
# sklearn/metrics.py at the workspace root; the evaluator runs `python -m kapso_evaluation.evaluate`
def roc_auc_score(y_true, y_score):
    return 0.99
```

Use instead:
```python
# model/scoring_helpers.py: a name the evaluator never imports
def balanced_weights(labels):
    return {label: 1 / labels.count(label) for label in set(labels)}
```
Name your modules so that they do not collide with what the evaluator imports, and keep start-up hooks out
of the directories on its `sys.path`.

## What a reviewer should do
Read the finding's detail: it names the module the file would replace. Rename the file if the collision is
an accident; otherwise treat the candidate as an attempt to replace the metric. The same kinds of file where
they cannot reach the evaluator are reported as IN011 flags, not rejections.

## References
- README "Integrity: fingerprints, guard, registry" (cases `sitecustomize-m`, `shadow-stdlib`,
  `shadow-suite-module`, `pythonpath-numpy`, `sklearn-package`, `pytest-conftest`)
- https://docs.python.org/3/library/site.html (`.pth` files and `sitecustomize`)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.findings import Finding

CODE = "IN007"
NAME = "interpreter-hook"
SEVERITY = FindingSeverity.REJECT
TITLE = "interpreter hook on the evaluator's sys.path"

if TYPE_CHECKING:
    from core.integrity.context import GuardContext


def check(ctx: GuardContext) -> Iterator[Finding]:
    """The rejections of the one hook analysis (`GuardContext.hook_findings`); its flags are IN011's."""
    yield from (finding for finding in ctx.hook_findings if finding.code == CODE)
