"""## What it does
Checks that the evaluator accepts a `--fast` option (argparse, click, typer or `sys.argv`).

## Why is this bad?
The contract asks for a `--fast` mode for smoke checks, so a campaign can reject a broken candidate in
seconds. Without it, every sanity check costs a full evaluation run.

## Example
```python
parser = argparse.ArgumentParser()
parser.add_argument("--data", default="kapso_datasets/test.csv")
```

Use instead:
```python
parser = argparse.ArgumentParser()
parser.add_argument("--data", default="kapso_datasets/test.csv")
parser.add_argument("--fast", action="store_true", help="smoke check on a small sample")
```

## Fix safety
Unsafe: it declares a mode the evaluator does not have yet. With no argument parser the fix adds
`FAST = "--fast" in sys.argv[1:]` after the imports (and `import sys` with them); the evaluator still has to
act on `FAST`. With an argparse parser there is no fix: adding the option alone would only trade this
finding for EV008 (parsed but never read), so add it where the evaluator can use it.

## References
- README "The evaluator contract", item 5
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from core.diagnostics import Applicability, Diagnostic, Fix, Severity
from core.rules.evaluator.context import EvaluatorContext

CODE = "EV007"
NAME = "no-fast-mode"
SEVERITY = Severity.WARNING
FIX_TITLE = "Add a `--fast` flag read from `sys.argv`"
FIX_SAFETY = Applicability.UNSAFE

PARSERS = frozenset({"argparse.ArgumentParser"})


def has_fast_option(ctx: EvaluatorContext) -> bool:
    if ctx.string_nodes("--fast"):
        return True
    return ctx.has_fast_parameter() and any(q.startswith(("typer", "fire")) for q in ctx.aliases.values())


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    if has_fast_option(ctx):
        return
    rule = sys.modules[__name__]
    message = "no `--fast` option is parsed: add a fast smoke-check mode"
    for call, _name in ctx.calls_to(PARSERS):
        stmt = ctx.statement_of(call)
        if isinstance(stmt, ast.Assign) and stmt.value is call and isinstance(stmt.targets[0], ast.Name):
            parser = stmt.targets[0].id
            message += f' (`{parser}.add_argument("--fast", action="store_true")`, then act on it)'
        yield ctx.diagnostic(rule, call, message)
        return
    sys_name, edits = ctx.ensure_import("sys")
    line = ctx.import_insert_line()
    edit = ctx.insert_lines(line, f'FAST = "--fast" in {sys_name}.argv[1:]  # smoke-check mode\n')
    yield ctx.diagnostic(rule, ctx.file_range(), message, Fix(FIX_TITLE, (*edits, edit)))
