"""What the evaluator writes to result.json, shared by EV005 and EV006, and the text of a writer to insert."""

from __future__ import annotations

import ast

from core.brief import same_metric
from core.rules.evaluator.analysis.ast_utils import has_star_kwargs
from core.rules.evaluator.analysis.scopes import Binding
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric import MetricInfo, expected_metric, metric_of, metric_rank
from core.rules.evaluator.paths import Write, is_result_json, result_json_path, writes

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
            added = _subscript_keys(ctx, node, name)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("update", "setdefault")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name
        ):
            added = _method_keys(ctx, node, node.func.attr)
        else:
            continue
        if added is None:
            return None
        keys |= added
    return keys


def _subscript_keys(
    ctx: EvaluatorContext, node: ast.Assign | ast.AugAssign | ast.AnnAssign, name: str
) -> set[str] | None:
    """The keys `name["k"] = v` assigns (None: one is computed)."""
    keys: set[str] = set()
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
    return keys


def _method_keys(ctx: EvaluatorContext, call: ast.Call, method: str) -> set[str] | None:
    """The keys `d.setdefault("k", v)` or `d.update(k=v, {...})` adds (None: one is computed)."""
    if method == "setdefault":
        key = ctx.string_value(call.args[0]) if call.args else None
        return None if key is None else {key}
    if has_star_kwargs(call):
        return None
    keys = {kw.arg for kw in call.keywords if kw.arg}
    for arg in call.args:
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


# What a writer may evaluate a second time: names, attributes, constants, arithmetic, a few pure builtins.
_PURE_NODES = (
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Constant,
    ast.BinOp,
    ast.UnaryOp,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.Tuple,
    ast.Slice,
    ast.Load,
    ast.operator,
    ast.unaryop,
)
_PURE_CALLS = frozenset({"float", "int", "round", "abs", "len", "str", "min", "max", "sum"})


def is_pure(ctx: EvaluatorContext, expr: ast.AST) -> bool:
    """Evaluating `expr` again has no effect and costs nothing (a writer may repeat it)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            if ctx.call_name(node) not in _PURE_CALLS or node.keywords:
                return False
        elif (isinstance(node, ast.Name) and node.id.startswith("_metric")) or not isinstance(
            node, (*_PURE_NODES, ast.Call)
        ):
            return False
    return True


def score_expr(ctx: EvaluatorContext, info: MetricInfo) -> str | None:
    """Python source for the number the metric print shows, from the value it prints (not from its text)."""
    value = info.shape.value
    if len(value) == 1 and isinstance(value[0], str):
        text = value[0]
        return f"float({text[:-1]!r}) / 100" if text.endswith("%") else f"float({text!r})"
    hole = info.shape.value_hole
    if hole is None or hole.expr is None or not is_pure(ctx, hole.expr):
        return None
    percent_sign = len(value) == 2 and value[1] == "%"
    expr = ctx.source_of(hole.expr)
    spec = hole.spec
    kind = spec[-1:]
    if kind in ("d", "i", "u"):
        number = f"float(int({expr}))"
    elif kind in ("", "s", "r") and spec[:-1].strip(" 0123456789") == "":
        number = f"float({expr})"
    elif kind in "eEfFgGn%":
        text = f"format({expr}, {spec!r})"
        number = f"float({text}[:-1]) / 100" if kind == "%" else f"float({text})"
    else:
        return None
    return f"{number} / 100" if percent_sign else number


def identified(ctx: EvaluatorContext, info: MetricInfo) -> bool:
    """The metric print is known to be the metric: the configured or brief's name, or a known metric name."""
    name = info.shape.name
    if not name:
        return False
    expected = expected_metric(ctx)
    if expected is not None:
        return same_metric(name, expected)
    return metric_rank(name) == 2


def writer_lines(ctx: EvaluatorContext, json_name: str, indent: str) -> str | None:
    """Lines that write result.json with the value the metric print shows, inserted right before that print;
    None unless the metric is identified and printed once on the normal path (not in a loop)."""
    info = metric_of(ctx)
    if info is None or info.shape.manifest or info.step.in_loop or info.step.in_finally:
        return None
    if not identified(ctx, info) or not info.shape.value_ok:
        return None
    line = metric_line_expr(ctx, info)
    score = score_expr(ctx, info)
    if line is None or score is None or not all(is_pure(ctx, a) for a in info.call.args):
        return None
    path = result_json_path(ctx)
    inner = indent + " " * 12
    return (
        f'{indent}with open({path!r}, "w", encoding="utf-8") as _result_file:\n'
        f"{indent}    {json_name}.dump(\n"
        f"{indent}        {{\n"
        f'{inner}"evaluation_script_path": {ctx.relpath!r},\n'
        f'{inner}"evaluation_output": {line},\n'
        f'{inner}"score": {score},\n'
        f"{indent}        }},\n"
        f"{indent}        _result_file,\n"
        f"{indent}    )\n"
    )
