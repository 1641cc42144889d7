"""## What it does
Rejects a candidate that modifies, deletes or adds files in a protected input: the data directory
(`kapso_datasets/` by default), the brief (and any `*.brief.md`), and every path in `protected_paths`.

## Why is this bad?
The score is only comparable while everyone is measured on the same data with the same protocol.
Rewritten labels, a dropped hard example, an added easy one or a brief whose `Measured by` line was
weakened all move the score without the model getting better.

## Example
```console
$ python -c "import pandas as pd; df = pd.read_csv('kapso_datasets/churn.csv'); df[df.tenure > 3].to_csv('kapso_datasets/churn.csv', index=False)"
$ git commit -am "clean data"
```

Use instead:
```console
$ mkdir -p model/cache
$ python -m model.features kapso_datasets/churn.csv > model/cache/features.parquet
```
Derive what you need from the protected data into your own directory; leave the inputs as they are.

## What a reviewer should do
Diff the named input against the baseline. A real data fix (a corrected label) is a new evaluator version
made by a maintainer, with the reason recorded in the registry; never accept it as part of a candidate.

## References
- README "Integrity: fingerprints, guard, registry" (cases `data-new-file`, `data-modified`,
  `brief-edited`)
- README "Configuration" (`protected_paths`)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.findings import Finding, reject

CODE = "IN010"
NAME = "protected-input-changed"
SEVERITY = FindingSeverity.REJECT
TITLE = "protected input modified, deleted or extended"

if TYPE_CHECKING:
    from core.integrity.context import Change, GuardContext


def check(ctx: GuardContext) -> Iterator[Finding]:
    for change in ctx.in_zone("input"):
        yield reject(CODE, change.path, _detail(change, ctx.input_root(change.path) or change.path))


def _detail(change: Change, root: str) -> str:
    old, new = change.old, change.new
    if new is None:
        return f"a protected input under {root!r} was deleted"
    if old is None:
        return f"a new file in the protected input {root!r}"
    if old.kind != new.kind:
        return f"a protected input became a {new.kind}"
    if change.content:
        return f"a protected input under {root!r} was modified"
    return f"a protected input's executable bit changed under {root!r}"
