"""## What it does
Flags the evaluator writing a file with a source suffix (`.py`, `.sh`, `.js`, `.yaml`, ...) into the suite.

## Why is this bad?
Every source file under the suite is protected: a new or changed one makes the next guard check reject
the run as tampering. Runtime artifacts (`result.json`, logs, predictions as `.csv`) are allowed.

## Example
```python
(Path(__file__).parent / "generated_config.yaml").write_text(config)
```

Use instead:
```python
(Path(tempfile.mkdtemp()) / "generated_config.yaml").write_text(config)
```

## References
- README "Integrity: fingerprints, guard, registry"; Kapso "a new file under it is rejected when it is source by suffix"
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import PurePosixPath

from core.diagnostics import Diagnostic, Severity
from core.integrity.classify import SOURCE_SUFFIXES as GUARD_SOURCE_SUFFIXES
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.paths import in_dir, writes

CODE = "EV016"
NAME = "writes-suite-source"
SEVERITY = Severity.WARNING
FIX_TITLE = None

# The guard's protected suffixes (IN005), plus other files a shell or loader runs.
SOURCE_SUFFIXES = GUARD_SOURCE_SUFFIXES | frozenset(
    {".fish", ".jl", ".lua", ".bat", ".cmd", ".dll", ".exe", ".jar", ".mk", ".makefile"}
)


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    for write in writes(ctx):
        if write.through_handle or not in_dir(write.target, ctx.suite):
            continue
        path = PurePosixPath(write.target.path)
        if path.suffix.lower() in SOURCE_SUFFIXES or path.name in ("Makefile", "Dockerfile", "conftest.py"):
            yield ctx.diagnostic(
                sys.modules[__name__],
                write.call,
                f"writes `{write.target.path}`, a source file inside the protected suite: the guard will reject the run",
            )
