"""What the evaluator writes to result.json, shared by EV005 and EV006, and the text of a writer to insert."""

from __future__ import annotations

import ast

from core.rules.evaluator.context import EvaluatorContext, has_star_kwargs
from core.rules.evaluator.metric import MetricInfo, metric_of
from core.rules.evaluator.paths import Write, is_result_json, result_json_path, writes
from core.rules.evaluator.scopes import Binding

REQUIRED_KEYS = ("evaluation_script_path", "evaluation_output", "score")


def result_writes(ctx: EvaluatorContext) -> list[Write]:
    return [w for w in writes(ctx) if is_result_json(ctx, w.target)]


def sibling_writes_result(ctx: EvaluatorContext) -> bool:
    """A helper module next to the evaluator (in the suite) mentions result.json: assume it writes it."""
    for imp in ctx.imports:
        names = [a.name for a in imp.names] if isinstance(imp, ast.Import) else [imp.module or ""]
        if isinstance(imp, ast.ImportFrom) and imp.level == 1 and not imp.module:
            names = [a.name for a in imp.names]
        for name in names:
            rel = name.replace(".", "/") + ".py"
            path = f"{ctx.directory}/{rel}" if ctx.directory else rel
            text = ctx.lint.read_file(path)
            if text is not None and "result.json" in text:
                return True
    return False


def dict_of(
    ctx: EvaluatorContext, expr: ast.expr | None
) -> tuple[set[str], ast.Dict | ast.Call | None] | None:
    """The keys of the object written, and the literal to extend; None when the keys cannot be known."""
    if isinstance(expr, ast.Dict):
        if any(k is None for k in expr.keys):
            return None
        keys = {k.value for k in expr.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        if len(keys) != len(expr.keys):
            return None
        return keys, expr
    if isinstance(expr, ast.Call) and ctx.call_name(expr) == "dict" and not expr.args:
        if has_star_kwargs(expr):
            return None
        return {kw.arg for kw in expr.keywords if kw.arg}, expr
    if isinstance(expr, ast.Name):
        binding = ctx.binding(expr)
        if binding is None or binding.kind != "value" or binding.value is None:
            return None
        found = dict_of(ctx, binding.value)
        if found is None:
            return None
        keys, literal = found
        extra = _added_keys(ctx, expr.id, binding)
        if extra is None:
            return None
        return keys | extra, literal
    return None


def _added_keys(ctx: EvaluatorContext, name: str, binding: Binding) -> set[str] | None:
    """Keys added later with `d["k"] = v` or `d.update(...)` to the same variable (by scope); None when some
    key is computed."""
    keys: set[str] = set()
    for node in ctx.key_adders(name):
        if not _adds_to(ctx, node, name, binding):
            continue
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == name
                ):
                    key = ctx.string_value(target.slice)
                    if key is None:
                        return None
                    keys.add(key)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("update", "setdefault")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name
        ):
            if node.func.attr == "setdefault":
                key = ctx.string_value(node.args[0]) if node.args else None
                if key is None:
                    return None
                keys.add(key)
                continue
            if has_star_kwargs(node):
                return None
            keys.update(kw.arg for kw in node.keywords if kw.arg)
            for arg in node.args:
                inner = dict_of(ctx, arg)
                if inner is None:
                    return None
                keys |= inner[0]
    return keys


def _adds_to(ctx: EvaluatorContext, node: ast.AST, name: str, binding: Binding) -> bool:
    """The adder's `name` is the variable bound by `binding` (not a namesake in another function)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        targets: list[ast.expr] = [node.func.value]
    elif isinstance(node, ast.Assign):
        targets = [t.value for t in node.targets if isinstance(t, ast.Subscript)]
    elif isinstance(node, ast.AugAssign | ast.AnnAssign) and isinstance(node.target, ast.Subscript):
        targets = [node.target.value]
    else:
        return True
    return any(isinstance(t, ast.Name) and t.id == name and ctx.binding(t) is binding for t in targets)


def metric_line_expr(ctx: EvaluatorContext, info: MetricInfo) -> str | None:
    """Python source that evaluates to the printed metric line."""
    args = info.call.args
    if info.step.name != "print" or not args or any(isinstance(a, ast.Starred) for a in args):
        return None
    if len(args) == 1:
        return ctx.source_of(args[0])
    if any(kw.arg == "sep" for kw in info.call.keywords):
        return None
    return '" ".join(str(_v) for _v in (' + ", ".join(ctx.source_of(a) for a in args) + "))"


def score_expr(line_var: str, info: MetricInfo) -> str:
    percent = any(isinstance(s, str) and "%" in s for s in info.shape.value) or any(
        not isinstance(s, str) and s.spec.endswith("%") for s in info.shape.value
    )
    if percent:
        return f'float({line_var}.split(":", 1)[1].strip().rstrip("%")) / 100'
    return f'float({line_var}.split(":", 1)[1])'


def writer_lines(ctx: EvaluatorContext, json_name: str, indent: str) -> str | None:
    """Lines that write result.json from the metric line, inserted right before the metric print."""
    info = metric_of(ctx)
    if info is None or info.shape.manifest:
        return None
    line = metric_line_expr(ctx, info)
    if line is None:
        return None
    path = result_json_path(ctx)
    payload = (
        f'{{"evaluation_script_path": {ctx.relpath!r}, "evaluation_output": _metric_line, '
        f'"score": {score_expr("_metric_line", info)}}}'
    )
    return (
        f"{indent}_metric_line = {line}\n"
        f'{indent}with open({path!r}, "w", encoding="utf-8") as _result_file:\n'
        f"{indent}    {json_name}.dump({payload}, _result_file)\n"
    )
