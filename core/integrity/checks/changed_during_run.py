"""## What it does
Rejects a candidate when the suite or a protected input is different after the evaluation run than before
it: Proctor hashes them again after every run and reports a protected file changed, deleted or made
executable, a new source file, bytecode or symlink in the suite, a suite directory removed or replaced, or a
protected input modified, added or deleted.

## Why is this bad?
The static checks see only what the candidate committed. Candidate code that rewrites `metrics.py` or the
labels while the evaluator runs changes the ruler after the guard looked at it, so the score the evaluator
prints can come from the candidate's metric.

## Example
```python
# model/train.py, imported by the evaluator's run
from pathlib import Path

Path("kapso_evaluation/metrics.py").write_text("def auc(*_):\n    return 0.99\n")
```

Use instead:
```python
# model/train.py: write artifacts, never protected files
from pathlib import Path

Path("kapso_evaluation/output").mkdir(exist_ok=True)
Path("kapso_evaluation/output/train.log").write_text("epochs: 10\n")
```
New non-source files (result.json, logs, predictions) are allowed in the suite.

## What a reviewer should do
Look for code in the candidate that writes under the suite or the protected inputs (the detail names the
file that changed). An evaluator that writes source files into its own suite trips this too: fix the
evaluator (`proctor check` reports those writes as EV016) and register a new version.

## References
- README "Integrity: fingerprints, guard, registry" (case `runtime-rewrite`)
- Rule EV016
"""

from __future__ import annotations

from core.diagnostics import FindingSeverity

CODE = "IN009"
NAME = "changed-during-run"
SEVERITY = FindingSeverity.REJECT
TITLE = "suite changed during the evaluation run"
