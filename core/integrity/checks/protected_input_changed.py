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

from core.diagnostics import FindingSeverity

CODE = "IN010"
NAME = "protected-input-changed"
SEVERITY = FindingSeverity.REJECT
TITLE = "protected input modified, deleted or extended"
