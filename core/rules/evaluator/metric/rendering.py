"""What a print-like call writes, rendered into literal text and holes (SPEC §3.1).

`print(f"auc: {auc:.4f}")` renders as the text `"auc: "` and a hole for `auc` with spec `.4f`;
`%`-formatting, `str.format`, `+`, `str(x)` and strings bound to names (by scope) are followed. The metric
discovery (`discovery.py`) and the rules about output after the metric line (EV003) read prints this way.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from core.patterns import LazyPattern
from core.rules.evaluator.context import EvaluatorContext

__all__ = ["STDOUT_WRITERS", "Hole", "Rendered", "Segment", "render_expr", "render_output", "stream_name"]

PERCENT_SPEC = LazyPattern(
    r"%(?:\(([^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])"
)
STDOUT_WRITERS = frozenset({"print", "sys.stdout.write", "sys.stderr.write", "click.echo", "typer.echo"})


@dataclass(frozen=True)
class Hole:
    """A value only known at run time; `spec` is its format spec (`.4f`) or %-conversion (`f`)."""

    expr: ast.expr | None
    spec: str = ""


Segment = str | Hole


@dataclass(frozen=True)
class Rendered:
    segments: tuple[Segment, ...]
    stream: str  # "stdout", "stderr" or "file"
    end: str | None  # None when not a constant


def render_output(ctx: EvaluatorContext, call: ast.Call, name: str | None) -> Rendered | None:
    """What a print-like call writes, or None when it is not one."""
    if name == "print":
        stream = _stream(ctx, _kw(call, "file"))
        sep_kw = _kw(call, "sep")
        sep: Segment = " " if sep_kw is None or _is_none(sep_kw) else (ctx.string_value(sep_kw) or Hole(None))
        segments: list[Segment] = []
        for number, arg in enumerate(call.args):
            if number:
                segments.append(sep)
            segments.extend([Hole(None)] if isinstance(arg, ast.Starred) else render_expr(ctx, arg))
        end_kw = _kw(call, "end")
        end = "\n" if end_kw is None or _is_none(end_kw) else ctx.string_value(end_kw)
        return Rendered(tuple(segments), stream, end)
    if name in ("sys.stdout.write", "sys.stderr.write"):
        if not call.args:
            return None
        segments = render_expr(ctx, call.args[0])
        end = ""
        if segments and isinstance(segments[-1], str) and segments[-1].endswith("\n"):
            end = "\n"
            segments = [*segments[:-1], segments[-1][:-1]]
        return Rendered(tuple(segments), "stdout" if name == "sys.stdout.write" else "stderr", end)
    if name in ("click.echo", "typer.echo"):
        err = _kw(call, "err")
        stream = "stderr" if isinstance(err, ast.Constant) and err.value else "stdout"
        if _kw(call, "file") is not None:
            stream = _stream(ctx, _kw(call, "file"))
        nl = _kw(call, "nl")
        end = "" if isinstance(nl, ast.Constant) and nl.value is False else "\n"
        segments = render_expr(ctx, call.args[0]) if call.args else []
        return Rendered(tuple(segments), stream, end)
    return None


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _stream(ctx: EvaluatorContext, file: ast.expr | None) -> str:
    if file is None or _is_none(file):
        return "stdout"
    name = stream_name(ctx, file)
    if name in ("sys.stdout", "sys.__stdout__"):
        return "stdout"
    if name in ("sys.stderr", "sys.__stderr__"):
        return "stderr"
    return "file"


def stream_name(ctx: EvaluatorContext, expr: ast.expr) -> str | None:
    """The qualified name of a stream, following local aliases (`out = sys.stdout`) by scope."""
    for _ in range(8):
        name = ctx.qualname(expr)
        if name is not None or not isinstance(expr, ast.Name):
            return name
        value = ctx.value_of(expr)
        if value is None:
            return None
        expr = value
    return None


def render_expr(ctx: EvaluatorContext, expr: ast.expr, depth: int = 0) -> list[Segment]:
    """The text `expr` renders as: literal pieces, and holes for what is only known at run time."""
    if depth > 8:
        return [Hole(expr)]
    text = ctx.string_value(expr)
    if text is not None:
        return [text]
    render = _RENDERERS.get(type(expr))
    return render(ctx, expr, depth) if render is not None else [Hole(expr)]


def _render_constant(ctx: EvaluatorContext, expr: ast.expr, depth: int) -> list[Segment]:
    assert isinstance(expr, ast.Constant)
    if isinstance(expr.value, int | float) and not isinstance(expr.value, bool):
        return [str(expr.value)]
    return [Hole(expr)]


def _render_joined(ctx: EvaluatorContext, expr: ast.expr, depth: int) -> list[Segment]:
    assert isinstance(expr, ast.JoinedStr)
    out: list[Segment] = []
    for value in expr.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            out.append(value.value)
        elif isinstance(value, ast.FormattedValue):
            out.extend(_formatted(ctx, value, depth))
    return out


def _render_binop(ctx: EvaluatorContext, expr: ast.expr, depth: int) -> list[Segment]:
    """`a + b` renders both sides; `"template" % args` renders the template."""
    assert isinstance(expr, ast.BinOp)
    if isinstance(expr.op, ast.Add):
        return render_expr(ctx, expr.left, depth + 1) + render_expr(ctx, expr.right, depth + 1)
    if isinstance(expr.op, ast.Mod):
        template = ctx.string_value(expr.left)
        if template is not None:
            return _percent(ctx, template, expr.right, depth)
    return [Hole(expr)]


def _render_name(ctx: EvaluatorContext, expr: ast.expr, depth: int) -> list[Segment]:
    """A variable bound to a string expression renders as that expression; anything else is a hole."""
    assert isinstance(expr, ast.Name)
    value = ctx.value_of(expr)
    if isinstance(value, ast.JoinedStr | ast.BinOp | ast.Call):
        rendered = render_expr(ctx, value, depth + 1)
        if not (len(rendered) == 1 and isinstance(rendered[0], Hole)):
            return rendered
    return [Hole(expr)]


def _render_call(ctx: EvaluatorContext, expr: ast.expr, depth: int) -> list[Segment]:
    """`"...".format(...)` renders its template; `str(x)` is x's hole; other calls are holes."""
    assert isinstance(expr, ast.Call)
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr == "format":
        template = ctx.string_value(func.value)
        if template is not None:
            return _str_format(ctx, template, expr, depth)
    if ctx.call_name(expr) == "str" and len(expr.args) == 1:
        return [Hole(expr.args[0])]
    return [Hole(expr)]


_Renderer = Callable[[EvaluatorContext, ast.expr, int], list[Segment]]
_RENDERERS: dict[type[ast.expr], _Renderer] = {
    ast.Constant: _render_constant,
    ast.Name: _render_name,
    ast.JoinedStr: _render_joined,
    ast.BinOp: _render_binop,
    ast.Call: _render_call,
}
"""How each kind of expression renders (`render_expr`); any other kind is a hole."""


def _formatted(ctx: EvaluatorContext, value: ast.FormattedValue, depth: int) -> list[Segment]:
    spec = ""
    if value.format_spec is not None:
        parts = [ctx.string_value(v) for v in getattr(value.format_spec, "values", [])]
        spec = "".join(p for p in parts if p is not None)
    text = ctx.string_value(value.value)
    if text is not None and not spec and value.conversion in (-1, ord("s")):
        return [text]
    if value.conversion == -1 and not spec and isinstance(value.value, ast.JoinedStr | ast.BinOp):
        return render_expr(ctx, value.value, depth + 1)
    return [Hole(value.value, spec)]


def _percent(ctx: EvaluatorContext, template: str, right: ast.expr, depth: int) -> list[Segment]:
    args: list[ast.expr] = list(right.elts) if isinstance(right, ast.Tuple) else [right]
    out: list[Segment] = []
    pos = 0
    index = 0
    for match in PERCENT_SPEC.finditer(template):
        out.append(template[pos : match.start()])
        pos = match.end()
        conversion = match.group(2)
        flags_width_precision = match.group(0)[1:-1]
        if match.group(1) is not None:
            flags_width_precision = flags_width_precision.split(")", 1)[1]
        if conversion == "%":
            out.append("%")
            continue
        arg = args[index] if index < len(args) and match.group(1) is None else None
        index += 1
        text = ctx.string_value(arg) if arg is not None else None
        if text is not None and conversion in "sr":
            out.append(text)
        else:
            out.append(Hole(arg, re.sub(r"[hlL]", "", flags_width_precision) + conversion))
    out.append(template[pos:])
    return out


def _str_format(ctx: EvaluatorContext, template: str, call: ast.Call, depth: int) -> list[Segment]:
    out: list[Segment] = []
    auto = 0
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return [Hole(call)]
    keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    for literal, field, spec, _conversion in parsed:
        out.append(literal)
        if field is None:
            continue
        arg: ast.expr | None = None
        if field == "":
            arg = call.args[auto] if auto < len(call.args) else None
            auto += 1
        elif field.isdigit():
            arg = call.args[int(field)] if int(field) < len(call.args) else None
        else:
            arg = keywords.get(field)
        text = ctx.string_value(arg) if arg is not None else None
        out.append(text if text is not None and not spec else Hole(arg, spec or ""))
    return out
