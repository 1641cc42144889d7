"""## What it does
Checks that the evaluator writes `<suite>/result.json` (by default `kapso_evaluation/result.json`).

## Why is this bad?
Kapso and Proctor read `result.json` next to the evaluator for the score and the evaluator's output. A
missing file, or one written somewhere else (the workspace root, a temp dir), leaves the run without its
record.

## Example
```python
print(f"auc: {auc:.4f}")
```

Use instead:
```python
RESULT = Path(__file__).parent / "result.json"
RESULT.write_text(json.dumps({"evaluation_script_path": __file__,
                              "evaluation_output": f"auc: {auc:.4f}", "score": auc}))
print(f"auc: {auc:.4f}")
```

## Fix safety
Safe: it changes behaviour only by creating the file. The fix is offered only when the metric print is
identified: it stores the value that print already prints (the metric variable), next to that print on the
normal path (never inside a loop or a failure branch), and adds `import json` with the imports. It is
written only when the result still parses and lints no worse.

## References
- README "The evaluator contract", item 2
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from core.diagnostics import Applicability, Diagnostic, Fix, Severity
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric import metric_of
from core.rules.evaluator.paths import result_json_path, writes
from core.rules.evaluator.results import result_writes, sibling_writes_result, writer_lines

CODE = "EV005"
NAME = "no-result-json"
SEVERITY = Severity.ERROR
FIX_TITLE = "Insert a result.json writer before the metric print"
FIX_SAFETY = Applicability.SAFE


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    if result_writes(ctx) or sibling_writes_result(ctx):
        return
    rule = sys.modules[__name__]
    expected = result_json_path(ctx)
    wrong = [w for w in writes(ctx) if w.target.known and w.target.endswith_name("result.json")]
    fix = writer_fix(ctx)
    if wrong:
        message = f"result.json is written to `{wrong[0].target.path}`, not `{expected}`"
        yield ctx.diagnostic(rule, wrong[0].call, message, fix)
    else:
        yield ctx.diagnostic(rule, ctx.file_range(), f"nothing writes `{expected}`", fix)


def writer_fix(ctx: EvaluatorContext) -> Fix | None:
    info = metric_of(ctx)
    if info is None:
        return None
    stmt = ctx.statement_of(info.call)
    if not isinstance(stmt, ast.Expr) or stmt.value is not info.call:
        return None
    indent = ctx.indent_of(stmt)
    if indent is None:
        return None
    json_name, import_edits = ctx.ensure_import("json", stmt)
    lines = writer_lines(ctx, json_name, indent)
    if lines is None:
        return None
    edit = ctx.insert_lines(ctx.start_of(stmt).line, lines)
    return Fix(FIX_TITLE, (*import_edits, edit))
