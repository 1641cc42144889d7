"""## What it does
Rejects a candidate that changes the type of a protected path (a file becomes a symlink, a directory or a
submodule; a directory on the way to the suite becomes a file or link), adds a special file (fifo, socket,
device) to the suite, or adds a symlink inside the suite or one that points into it.

## Why is this bad?
A symlink or a directory keeps the protected name while the bytes come from somewhere the candidate
controls: `metrics.py` becomes a link to the candidate's own copy, or a package directory that outranks the
module at import. A link from outside into the suite lets candidate code write protected files at run time.
Content hashes of the old path do not see any of this.

## Example
```console
$ rm kapso_evaluation/metrics.py
$ ln -s ../model/my_metrics.py kapso_evaluation/metrics.py
$ git add -A && git commit -m "share metrics"
```

Use instead:
```console
$ git mv model/helpers.py model/features.py
$ git commit -m "rename a helper outside the suite"
```
Keep every protected path the same kind of entry it is in the baseline; put links only where they touch
neither the suite nor its parent directories.

## What a reviewer should do
Look at where the link or the new entry points (`git show <candidate>:<path>`). Treat it as an attempt to
substitute the evaluator's code or data, and reject the candidate's work.

## References
- README "Integrity: fingerprints, guard, registry" (cases `symlink-replaces-file`, `symlink-into-suite`,
  `file-becomes-dir`)
"""

from __future__ import annotations

from core.diagnostics import FindingSeverity

CODE = "IN003"
NAME = "protected-path-type-changed"
SEVERITY = FindingSeverity.REJECT
TITLE = "protected path changed type, or a symlink in or into the suite"
