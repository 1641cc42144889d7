"""## What it does
Checks that the data paths the brief names exist in the workspace: paths under the data directory
(`kapso_datasets/churn.csv`), the protocol's data path, and back-quoted paths in a `Data` section. The suite
is not checked here (briefs often name it in their rules: "do not edit `kapso_evaluation/`"), nor are URLs,
absolute paths (hold-out labels kept outside the workspace) or `<placeholders>`.

## Why is this bad?
A brief that points at a file that is not there is either out of date or mistyped; either way the evaluator
built from it (or checked against it) measures something else, and a campaign fails late instead of now.

## Example
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn_v2.csv, an 80/20 split with seed 42,
printed as `auc: <value>`.
```

Use instead:
```markdown
Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 split with seed 42,
printed as `auc: <value>`.
```

## References
- README "`proctor check`: static rules"; README "Configuration" (`data_dir`, `evaluation_dir`)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from core.brief import workspace_paths
from core.diagnostics import Diagnostic, Severity
from core.rules.brief.context import BriefContext

CODE = "BR007"
NAME = "data-not-found"
SEVERITY = Severity.WARNING
FIX_TITLE = None


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    config = ctx.lint.config
    if ctx.lint.workspace is None and ctx.lint.exists is None:
        return
    extra = [ctx.protocol.data.range] if ctx.protocol is not None and ctx.protocol.data is not None else []
    suite = config.evaluation_dir.strip("/")
    brief_dir = PurePosixPath(ctx.relpath).parent
    for field in workspace_paths(ctx.text, (config.data_dir,), extra):
        path = field.value.removeprefix("./").rstrip("/")
        if not path or path == suite or path.startswith(f"{suite}/"):
            continue
        if ctx.lint.path_exists(path):
            continue
        if brief_dir != PurePosixPath(".") and ctx.lint.path_exists((brief_dir / path).as_posix()):
            continue
        yield ctx.diagnostic(
            CODE,
            NAME,
            SEVERITY,
            field.range,
            f"`{field.value}` named in the brief does not exist in the workspace",
        )
