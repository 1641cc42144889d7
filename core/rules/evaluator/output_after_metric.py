"""## What it does
Flags anything that can write to stdout after the metric line: a later `print`, logging configured to
stdout, an uncaptured subprocess, an `atexit` hook or a `finally` block that prints.

## Why is this bad?
Only the last non-empty stdout line is the score. One more line after it ("done", a summary table, a log
record) and the run has no score at all, even though the metric was printed.

## Example
```python
print(f"auc: {auc:.4f}")
print("saved predictions to preds.csv")
```

Use instead:
```python
print("saved predictions to preds.csv", file=sys.stderr)
print(f"auc: {auc:.4f}")
```

## References
- README "The evaluator contract" (a last line that is not a metric line gives no score)
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import replace

from core.diagnostics import Diagnostic, Related, Severity
from core.rules.evaluator.analysis.ast_utils import keyword, walk_no_nested
from core.rules.evaluator.analysis.flow_steps import Step, exclusive
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric import MetricInfo, flow_of, metric_of, render_output, stream_name

CODE = "EV003"
NAME = "output-after-metric"
SEVERITY = Severity.ERROR
FIX_TITLE = None

LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
SUBPROCESS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.Popen"})


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    info = metric_of(ctx)
    if info is None or info.rendered.stream != "stdout":
        return
    metric = Related(ctx.relpath, ctx.range_of(info.call), "the metric line is printed here")
    yield from _later_writes(ctx, info, metric)
    yield from _atexit_prints(ctx)


def _later_writes(ctx: EvaluatorContext, info: MetricInfo, metric: Related) -> Iterator[Diagnostic]:
    """A metric printed in a loop, and every stdout write on the normal path after it."""
    rule = sys.modules[__name__]
    if info.step.in_loop:
        message = "the metric line is printed inside a loop: every later pass prints after the first line"
        yield replace(ctx.diagnostic(rule, info.call, message), related=(metric,))
    stdout_logging = _logs_to_stdout(ctx)
    seen: set[int] = {id(info.call)}
    for step in flow_of(ctx).steps[info.step.order + 1 :]:
        if not step.normal or exclusive(info.step, step) or id(step.call) in seen:
            continue
        what = _writes_stdout(ctx, step, stdout_logging)
        if what:
            seen.add(id(step.call))
            message = f"{what} after the metric line, so it is no longer the last line"
            yield replace(ctx.diagnostic(rule, step.call, message), related=(metric,))


def _atexit_prints(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    """`atexit` hooks run after everything, the metric line included."""
    rule = sys.modules[__name__]
    for call, _name in ctx.calls_to({"atexit.register"}):
        if call.args and _target_prints(ctx, call.args[0]):
            yield ctx.diagnostic(rule, call, "an `atexit` hook prints to stdout after the metric line")
    for func in ctx.functions.values():
        for dec in func.decorator_list:
            if ctx.qualname(dec) == "atexit.register" and _body_prints(ctx, func.body):
                yield ctx.diagnostic(rule, dec, "an `atexit` hook prints to stdout after the metric line")


def _writes_stdout(ctx: EvaluatorContext, step: Step, stdout_logging: bool) -> str | None:
    call, name = step.call, step.name
    if name in ("print", "sys.stdout.write", "click.echo", "typer.echo"):
        rendered = render_output(ctx, call, name)
        if rendered is None or rendered.stream != "stdout":
            return None
        if all(isinstance(s, str) and not s.strip() for s in rendered.segments):
            return None
        return "`print` writes to stdout" if name == "print" else f"`{name}` writes to stdout"
    if name in ("pprint.pprint", "pprint.pp") and keyword(call, "stream") is None:
        return "`pprint` writes to stdout"
    if name in SUBPROCESS:
        captured = any(kw.arg in ("stdout", "capture_output") for kw in call.keywords)
        return None if captured else "a subprocess inherits stdout and can write"
    if name == "os.system":
        return "`os.system` inherits stdout and can write"
    if stdout_logging and _is_log_call(ctx, call, name):
        return "logging (configured to stdout) writes"
    return None


def _is_log_call(ctx: EvaluatorContext, call: ast.Call, name: str | None) -> bool:
    if name is not None:
        return name.startswith("logging.") and name.rsplit(".", 1)[-1] in LOG_METHODS
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in LOG_METHODS and isinstance(func.value, ast.Name):
        value = ctx.value_of(func.value)
        return isinstance(value, ast.Call) and ctx.call_name(value) == "logging.getLogger"
    return False


def _logs_to_stdout(ctx: EvaluatorContext) -> bool:
    for call, name in ctx.calls_to({"logging.basicConfig", "logging.StreamHandler"}):
        stream = keyword(call, "stream")
        value = (
            stream.value
            if stream is not None
            else (call.args[0] if name.endswith("Handler") and call.args else None)
        )
        if value is not None and stream_name(ctx, value) in ("sys.stdout", "sys.__stdout__"):
            return True
    return False


def _target_prints(ctx: EvaluatorContext, target: ast.expr) -> bool:
    if isinstance(target, ast.Lambda):
        return _body_prints(ctx, [ast.Expr(target.body)])
    if isinstance(target, ast.Name) and target.id in ctx.functions:
        return _body_prints(ctx, ctx.functions[target.id].body)
    return ctx.qualname(target) == "print"


def _body_prints(ctx: EvaluatorContext, body: list[ast.stmt]) -> bool:
    for node in walk_no_nested(body):
        if isinstance(node, ast.Call):
            name = ctx.call_name(node)
            rendered = render_output(ctx, node, name) if name else None
            if rendered is not None and rendered.stream == "stdout" and rendered.segments:
                return True
    return False
