"""## What it does
Flags reading files under the data or suite directory whose names say they hold hold-out labels or answers
(`label`, `holdout`, `answer`, `ground_truth`, `test_y`, `y_test`).

## Why is this bad?
The data directory and the suite are in the workspace every candidate sees. Labels stored there can be
read (or memorised) by the candidate, so the score measures lookup, not skill. Keep hold-out labels outside
the workspace and let only the evaluator reach them.

## Example
```python
y_true = pd.read_csv("kapso_datasets/test_labels.csv")["churned"]
```

Use instead:
```python
y_true = pd.read_csv(os.environ["CHURN_HOLDOUT_LABELS"])["churned"]
```

## References
- README "`proctor check`: static rules"; Kapso "Keep hold-out labels out of both directories"
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from functools import lru_cache
from pathlib import PurePosixPath

from core.diagnostics import Diagnostic, Severity
from core.patterns import LazyPattern
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.paths import PathValue, in_dir, open_mode, resolve_path

CODE = "EV015"
NAME = "labels-in-workspace"
SEVERITY = Severity.WARNING
FIX_TITLE = None

LABEL_NAME = LazyPattern(
    r"label|hold[_\-]?out|answer|ground[_\-]?truth|test[_\-]?y(?![a-z])|y[_\-]test|(?<![a-z])gold(?![a-z])",
    re.IGNORECASE,
)
READ_WORDS = ("read", "load", "open", "genfromtxt", "fromfile", "copy")


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    rule = sys.modules[__name__]
    for call, name in zip(ctx.calls, ctx.call_names, strict=True):
        method = call.func.attr if isinstance(call.func, ast.Attribute) else None
        local = call.func.id if isinstance(call.func, ast.Name) else None  # `read_rows(path)` defined here
        label = (name or method or local or "").rsplit(".", 1)[-1].lower()
        candidates: list[ast.expr] = []
        if method in ("read_text", "read_bytes", "open") and name is None:
            assert isinstance(call.func, ast.Attribute)
            if method != "open" or "w" not in open_mode(ctx, call, 0):
                candidates.append(call.func.value)
        elif _reads(label):
            if label == "open" and any(c in open_mode(ctx, call, 1) for c in "wax"):
                continue
            candidates.extend(call.args[:1])
            candidates.extend(
                kw.value for kw in call.keywords if kw.arg in ("path", "file", "filepath_or_buffer")
            )
        for expr in candidates:
            value = resolve_path(ctx, expr)
            where = _labels_in_workspace(ctx, value)
            if where:
                yield ctx.diagnostic(
                    rule,
                    call,
                    f"reads hold-out labels from `{value.path}` inside the {where}: candidates can read them",
                )
                break


@lru_cache(maxsize=4096)
def _reads(label: str) -> bool:
    """A call of this (lower-case) name reads the file its first argument names (decided once per name)."""
    return any(word in label for word in READ_WORDS) and "write" not in label and "save" not in label


def _labels_in_workspace(ctx: EvaluatorContext, value: PathValue) -> str | None:
    for directory, where in ((ctx.data_dir, "data directory"), (ctx.suite, "suite")):
        if directory and in_dir(value, directory):
            below = PurePosixPath(value.path).relative_to(directory)
            if any(LABEL_NAME.search(part) for part in below.parts):
                return where
    return None
