"""## What it does
Rejects a candidate that deletes a protected file of the evaluation suite.

## Why is this bad?
A deleted metric helper, test set loader or config makes the evaluator fall back to something else, fail
in a way that looks like a low-but-valid score, or skip a check. Either way the candidate is no longer
measured by the suite the baseline was measured by.

## Example
```console
$ git rm kapso_evaluation/checks.py
$ git commit -m "remove slow checks"
```

Use instead:
```console
$ git rm model/legacy_features.py
$ git commit -m "drop unused features"
```
Delete what you own; leave the suite as the baseline has it.

## What a reviewer should do
Check whether the deleted file is still needed by the evaluator. A suite that really should lose a file is
changed by a maintainer and registered as a new evaluator version, never by a candidate.

## References
- README "Integrity: fingerprints, guard, registry"
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.findings import Finding, reject

CODE = "IN002"
NAME = "protected-file-deleted"
SEVERITY = FindingSeverity.REJECT
TITLE = "protected file deleted"

if TYPE_CHECKING:
    from core.integrity.context import GuardContext


def check(ctx: GuardContext) -> Iterator[Finding]:
    for change in ctx.in_zone("suite"):
        if (
            change.protected_file
            and change.new is None
            and ctx.view.new_kind(change.path) not in ("dir", "submodule")
        ):
            yield reject(CODE, change.path, "a protected file was deleted")
