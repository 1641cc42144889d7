"""## What it does
Rejects a candidate that adds (or changes a non-protected) source file inside the suite: a file with a
source suffix (Kapso's list plus `.pth .pyi .pyx .pxd .so .dylib .pyd .mjs .cjs .pyc`, compared
case-insensitively and ignoring trailing dots and spaces), any executable file, or any file starting with
`#!`. Bytecode in `__pycache__/` counts: a planted `.pyc` can replace a module at import.

## Why is this bad?
Python imports what it finds first. A new `json.py`, an extension module `metrics.so` that outranks
`metrics.py`, a `.pth` file or an unchecked-hash `.pyc` next to the evaluator all run inside the evaluator's
process and can change the score without touching a single protected file.

## Example
```console
$ python -c "import py_compile; py_compile.compile('my_metrics.py', cfile='kapso_evaluation/__pycache__/metrics.cpython-311.pyc', invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)"
$ git add -f kapso_evaluation/__pycache__ && git commit -m "cache"
```

Use instead:
```console
$ mkdir -p kapso_evaluation/output
$ python -m model.predict > kapso_evaluation/output/predictions.csv
```
New non-source files (result.json, logs, predictions, profiles) are allowed anywhere; code belongs
outside the suite.

## What a reviewer should do
Open the new file (`git show <candidate>:<path>`) and check what it would shadow or run. A helper the
evaluator really needs is added by a maintainer, with a new evaluator version.

## References
- README "Integrity: fingerprints, guard, registry" (cases `new-py`, `pth-file`, `unchecked-pyc`,
  `so-outranks-py`, `shebang-no-suffix`, `suffix-case-dots`)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.classify import SOURCE_SUFFIXES, is_source, source_suffix
from core.integrity.findings import Finding, reject

CODE = "IN005"
NAME = "new-source-in-suite"
SEVERITY = FindingSeverity.REJECT
TITLE = "new source file in the suite"

if TYPE_CHECKING:
    from core.integrity.context import GuardContext


def check(ctx: GuardContext) -> Iterator[Finding]:
    for change in ctx.in_zone("suite"):
        path, old, new = change.path, change.old, change.new
        if change.protected_file or new is None or new.kind in ("symlink", "submodule", "special"):
            continue  # symlinks and special files are IN003; a gitlink is an empty directory
        if old is not None and not change.content and old.kind == new.kind:
            continue  # only the exec bit of a cache file changed
        known = (
            new.executable or source_suffix(path) in SOURCE_SUFFIXES
        )  # a shebang can hide behind any suffix
        head = b"" if known else (ctx.view.read_new(path) or b"")[:2]
        if is_source(path, executable=new.executable, head=head):
            what = "changed" if old is not None else "new"
            why = (
                "bytecode can replace a module at import"
                if source_suffix(path) == ".pyc"
                else "source by suffix, mode or shebang"
            )
            yield reject(CODE, path, f"a {what} source file in the suite ({why})")
