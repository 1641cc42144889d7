"""## What it does
Rejects a candidate that sets or clears the executable bit of a protected file, even when its bytes are
unchanged.

## Why is this bad?
The mode is part of what runs: a data file made executable can be launched by a command or a shell glob,
and a script whose bit is cleared may be skipped or run by another interpreter. Kapso's fingerprint hashes
content only and does not see the change; Proctor records modes beside it.

## Example
```console
$ git update-index --chmod=+x kapso_evaluation/config.yaml
$ git commit -m "fix permissions"
```

Use instead:
```console
$ git update-index --chmod=+x scripts/train.sh
$ git commit -m "make the training script executable"
```
Change modes only on files outside the suite and the protected inputs.

## What a reviewer should do
Ask what the mode change is for. If the evaluator needs it, a maintainer makes it and registers a new
evaluator version.

## References
- README "Integrity: fingerprints, guard, registry" (case `exec-bit`)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.findings import Finding, reject

CODE = "IN004"
NAME = "executable-bit-changed"
SEVERITY = FindingSeverity.REJECT
TITLE = "protected file's executable bit changed"

if TYPE_CHECKING:
    from core.integrity.context import GuardContext


def check(ctx: GuardContext) -> Iterator[Finding]:
    for change in ctx.in_zone("suite"):
        old, new = change.old, change.new
        if not change.protected_file or old is None or new is None or new.kind != "file":
            continue
        if old.executable != new.executable:
            state = "set" if new.executable else "cleared"
            yield reject(CODE, change.path, f"the executable bit was {state} on a protected file")
