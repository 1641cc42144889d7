"""## What it does
Flags a `--fast` option that is parsed but never read (`args.fast` appears nowhere).

## Why is this bad?
A `--fast` flag that changes nothing runs the full evaluation under a "fast" label: smoke checks are as
slow as full runs, and the fast score is silently a full one.

## Example
```python
parser.add_argument("--fast", action="store_true")
args = parser.parse_args()
rows = load_rows()
```

Use instead:
```python
parser.add_argument("--fast", action="store_true")
args = parser.parse_args()
rows = load_rows()[:500] if args.fast else load_rows()
```

## References
- README "The evaluator contract", item 5
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from core.diagnostics import Diagnostic, Severity
from core.rules.evaluator.analysis.ast_utils import keyword
from core.rules.evaluator.context import EvaluatorContext, register_fact

CODE = "EV008"
NAME = "fast-mode-unused"
SEVERITY = Severity.WARNING
FIX_TITLE = None


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    for call in ctx.calls:
        if not isinstance(call.func, ast.Attribute) or call.func.attr not in (
            "add_argument",
            "option",
            "Option",
        ):
            continue
        flags = [ctx.string_value(a) for a in call.args]
        if "--fast" not in flags:
            continue
        dest_kw = keyword(call, "dest")
        dest = ctx.string_value(dest_kw.value) if dest_kw is not None else "fast"
        if dest is None or _is_read(ctx, dest, call):
            continue
        yield ctx.diagnostic(
            sys.modules[__name__],
            call,
            f"`--fast` is parsed but `{dest}` is never read, so fast mode changes nothing",
        )


def _is_read(ctx: EvaluatorContext, dest: str, declaration: ast.Call) -> bool:
    if dest in ctx.attribute_loads or dest in ctx.name_loads:
        return True
    declared = {id(a) for a in declaration.args}
    if any(id(s) not in declared for s in ctx.string_nodes(dest)):
        return True
    # `run(**vars(args))` hands every option to a function: assume it is read there.
    return ctx.fact("EV008.vars_spread", "") is True


def _vars_spread(ctx: EvaluatorContext, _key: str) -> bool:
    for call in ctx.star_kwarg_calls():
        for kw in call.keywords:
            if kw.arg is None and isinstance(kw.value, ast.Call) and ctx.call_name(kw.value) == "vars":
                return True
    return False


register_fact("EV008.vars_spread", _vars_spread)
