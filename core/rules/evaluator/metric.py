"""Which print is the evaluator's metric line, and what it prints (SPEC §3.1).

A print's arguments are rendered into literal text and holes (`print(f"auc: {auc:.4f}")` -> `"auc: "`,
hole `auc` with spec `.4f`); `%`-formatting, `str.format`, `+` and module string constants are followed.
Of the `name: value`-shaped prints on the normal exit path of the approximate execution order (`flow.py`),
the metric print is the last one whose name is the config's `metric`, else the brief's metric, else a known
metric name (accuracy, auc, f1, rmse, mrr, exact_match, pass@k, ...) rather than a count (`Samples: 500`,
`depth: 8`, a cost); only when none is, the last metric-shaped print. Stdout prints win over stderr ones.
EV002, EV003, EV004, EV005, EV006 and the brief rule BR008 all read the answer from here.
"""

from __future__ import annotations

import ast
import re
import string
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

from core.brief import parse_brief, same_metric
from core.diagnostics import Range
from core.patterns import LazyPattern
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator.context import EvaluatorContext, Flow, Lookup, Step, walk
from core.rules.evaluator.views import DocumentView
from core.scoreline import METRIC_NAME, SCORE_LINE

MANIFEST_PREFIX = "KAPSO_EVAL_MANIFEST"
NUMBER = LazyPattern(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?%?$")
PERCENT_SPEC = LazyPattern(
    r"%(?:\(([^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])"
)
NUMERIC_SPEC_TYPES = frozenset("eEfFgGn%d")
METRIC_WORDS = LazyPattern(
    r"auc|acc|score|rmse|mse|mae|mape|f1|loss|err|precision|recall|r2|metric|value|result|ndcg|map|bleu|rouge"
    r"|corr|logloss|perplexity|ppl|pass|mean|avg|rate",
    re.IGNORECASE,
)
KNOWN_METRIC = LazyPattern(
    r"(?<![a-z])(?:accuracy|acc|auc|auroc|auprc|roc|f1|f_?beta|rmse|rmsle|mse|mae|mape|smape|bpb|bpc|mrr"
    r"|ndcg|map|exact[_ ]?match|em|pass|precision|recall|r2|bleu|rouge\w*|chrf|meteor|wer|cer|perplexity"
    r"|ppl|log_?loss|loss|error|err|score|win[_ ]?rate|success[_ ]?rate|hit|hits|top[_-]?\d+|spearman"
    r"|pearson|kappa|iou|miou|dice|mcc|brier|gini|corr|metric)(?![a-z])",
    re.IGNORECASE,
)
COUNT_NAME = LazyPattern(
    r"(?<![a-z])(?:n|num|number|count|total|samples?|examples?|items?|rows?|records?|size|depth|cost|usd"
    r"|price|quer(?:y|ies)|tokens?|time|seconds?|secs?|elapsed|duration|epochs?|steps?|iters?|iterations?"
    r"|batch|lr|seed|id|version|dim|width|params?|parameters|calls|requests|files|runs|trials)(?![a-z])",
    re.IGNORECASE,
)
STDOUT_WRITERS = frozenset({"print", "sys.stdout.write", "sys.stderr.write", "click.echo", "typer.echo"})


@dataclass(frozen=True)
class MetricPrint:
    """The metric the evaluator prints last and where (the range of the print call)."""

    name: str
    range: Range


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


@dataclass(frozen=True)
class Shape:
    """A rendered line split at its first `:` into name and value."""

    name: str | None  # the literal name; None when computed at run time
    dynamic_name: bool
    name_valid: bool
    value: tuple[Segment, ...]
    value_ok: bool
    metric_like: bool
    manifest: bool = False

    @property
    def value_hole(self) -> Hole | None:
        holes = [s for s in self.value if isinstance(s, Hole)]
        return holes[0] if len(holes) == 1 else None


@dataclass(frozen=True)
class MetricInfo:
    step: Step
    call: ast.Call
    rendered: Rendered
    shape: Shape


def printed_metric(source: str) -> MetricPrint | None:
    """The metric name the evaluator prints as its final metric line, or None when it cannot be told."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    ctx = EvaluatorContext("evaluate.py", source, DocumentKind.EVALUATOR, LintContext(), tree)
    info = metric_of(ctx)
    if info is None or info.shape.name is None or not info.shape.name_valid:
        return None
    return MetricPrint(info.shape.name, ctx.range_of(info.call))


_FLOWS: OrderedDict[tuple[object, ...], tuple[dict[Lookup, object], Flow]] = OrderedDict()
_FLOWS_LOCK = threading.Lock()


def flow_of(ctx: EvaluatorContext) -> Flow:
    """The execution-order walk of the document, reused from the last lint when its lookups still hold."""
    flow = ctx.memo.get("flow")
    if isinstance(flow, Flow):
        return flow
    key = (ctx.relpath, ctx.kind, ctx.lint.config.evaluation_dir)
    with _FLOWS_LOCK:
        cached = _FLOWS.get(key)
    if cached is not None and ctx.reads_hold(cached[0]):
        flow = cached[1].copy_for(ctx)
    else:
        view = DocumentView(ctx)
        walked = Flow(view)
        flow = walked.copy_for(ctx)
        with _FLOWS_LOCK:
            _FLOWS[key] = (view.reads, walked.copy_for(ctx))
            _FLOWS.move_to_end(key)
            while len(_FLOWS) > 32:
                _FLOWS.popitem(last=False)
    ctx.memo["flow"] = flow
    return flow


def clear_flows() -> None:
    with _FLOWS_LOCK:
        _FLOWS.clear()


def metric_of(ctx: EvaluatorContext) -> MetricInfo | None:
    """The metric print (memoized per document); walks referenced-but-uncalled functions when needed."""
    if "metric" in ctx.memo:
        cached = ctx.memo["metric"]
        return cached if isinstance(cached, MetricInfo) else None
    flow = flow_of(ctx)
    found = _pick(ctx, flow.steps)
    if found is None:
        start = len(flow.steps)
        flow.walk_unreached()
        found = _pick(ctx, flow.steps[start:])
    ctx.memo["metric"] = found
    return found


def _pick(ctx: EvaluatorContext, steps: list[Step]) -> MetricInfo | None:
    candidates: list[MetricInfo] = []
    for step in steps:
        if not step.normal or step.name not in STDOUT_WRITERS:
            continue
        rendered = render_output(ctx, step.call, step.name)
        if rendered is None or rendered.stream == "file":
            continue
        shape = classify(rendered.segments)
        if shape is None or not shape.metric_like:
            continue
        candidates.append(MetricInfo(step, step.call, rendered, shape))
    expected = expected_metric(ctx)
    tiers = (
        [
            c
            for c in candidates
            if expected is not None and c.shape.name and same_metric(c.shape.name, expected)
        ],
        [c for c in candidates if metric_rank(c.shape.name) == 2],
        [c for c in candidates if metric_rank(c.shape.name) >= 1],
        candidates,
    )
    for tier in tiers:
        best = _last_by_stream(tier)
        if best is not None:
            return best
    return None


def _last_by_stream(infos: list[MetricInfo]) -> MetricInfo | None:
    out = [i for i in infos if i.rendered.stream == "stdout"]
    return (out or infos)[-1] if infos else None


def metric_rank(name: str | None) -> int:
    """2 for a known metric name (`accuracy`, `MRR @10`), 0 for a count (`Samples`, `depth`, `cost`), else 1."""
    if not name:
        return 1
    if KNOWN_METRIC.search(name) is not None:
        return 2
    return 0 if COUNT_NAME.search(name) is not None else 1


def expected_metric(ctx: EvaluatorContext) -> str | None:
    """The metric name the evaluator should print: the config's `metric`, else the brief's."""
    config = ctx.lint.config
    if config.metric.strip():
        return config.metric.strip()
    text = ctx.lint.read_file(config.brief) if config.brief else None
    return _brief_metric(text) if text else None


@lru_cache(maxsize=8)
def _brief_metric(text: str) -> str | None:
    protocol = parse_brief(text).protocol
    if protocol is None:
        return None
    if protocol.print_name:
        return protocol.print_name
    return protocol.metric.value if protocol.metric is not None else None


# -- rendering -------------------------------------------------------------------------------------------------


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
    if depth > 8:
        return [Hole(expr)]
    text = ctx.string_value(expr)
    if text is not None:
        return [text]
    if (
        isinstance(expr, ast.Constant)
        and isinstance(expr.value, int | float)
        and not isinstance(expr.value, bool)
    ):
        return [str(expr.value)]
    if isinstance(expr, ast.Name):
        return _render_name(ctx, expr, depth)
    if isinstance(expr, ast.JoinedStr):
        out: list[Segment] = []
        for value in expr.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                out.append(value.value)
            elif isinstance(value, ast.FormattedValue):
                out.extend(_formatted(ctx, value, depth))
        return out
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return render_expr(ctx, expr.left, depth + 1) + render_expr(ctx, expr.right, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):
        template = ctx.string_value(expr.left)
        if template is not None:
            return _percent(ctx, template, expr.right, depth)
    if isinstance(expr, ast.Call):
        return _render_call(ctx, expr, depth)
    return [Hole(expr)]


def _render_name(ctx: EvaluatorContext, expr: ast.Name, depth: int) -> list[Segment]:
    """A variable bound to a string expression renders as that expression; anything else is a hole."""
    value = ctx.value_of(expr)
    if isinstance(value, ast.JoinedStr | ast.BinOp | ast.Call):
        rendered = render_expr(ctx, value, depth + 1)
        if not (len(rendered) == 1 and isinstance(rendered[0], Hole)):
            return rendered
    return [Hole(expr)]


def _render_call(ctx: EvaluatorContext, expr: ast.Call, depth: int) -> list[Segment]:
    """`"...".format(...)` renders its template; `str(x)` is x's hole; other calls are holes."""
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr == "format":
        template = ctx.string_value(func.value)
        if template is not None:
            return _str_format(ctx, template, expr, depth)
    if ctx.call_name(expr) == "str" and len(expr.args) == 1:
        return [Hole(expr.args[0])]
    return [Hole(expr)]


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


# -- shape -----------------------------------------------------------------------------------------------------


def _merge(segments: tuple[Segment, ...] | list[Segment]) -> list[Segment]:
    out: list[Segment] = []
    for seg in segments:
        if isinstance(seg, str):
            if not seg:
                continue
            if out and isinstance(out[-1], str):
                out[-1] = out[-1] + seg
                continue
        out.append(seg)
    return out


def classify(segments: tuple[Segment, ...] | list[Segment]) -> Shape | None:
    """Split a rendered line into `name: value`; None when it has no literal `:`."""
    merged = _merge(segments)
    if merged and isinstance(merged[0], str) and merged[0].lstrip().startswith(MANIFEST_PREFIX):
        return Shape(None, False, True, tuple(merged), True, True, manifest=True)
    colon_at = next((i for i, s in enumerate(merged) if isinstance(s, str) and ":" in s), None)
    if colon_at is None:
        return None
    head = merged[colon_at]
    assert isinstance(head, str)
    before, after = head.split(":", 1)
    name_segs = [*merged[:colon_at], before]
    value_segs = _merge([after, *merged[colon_at + 1 :]])
    # Only the text after the last newline of the name part is on the metric line.
    for i in range(len(name_segs) - 1, -1, -1):
        seg = name_segs[i]
        if isinstance(seg, str) and "\n" in seg:
            name_segs = [seg.rsplit("\n", 1)[1], *name_segs[i + 1 :]]
            break
    name_segs = [s for s in _merge(name_segs) if not (isinstance(s, str) and not s.strip())]
    value = _strip_value(value_segs)
    if not name_segs or not value:
        return None
    name: str | None = None
    dynamic = False
    if len(name_segs) == 1 and isinstance(name_segs[0], Hole):
        dynamic = True
    elif all(isinstance(s, str) for s in name_segs):
        name = "".join(s for s in name_segs if isinstance(s, str)).strip()
    else:
        return None
    name_valid = dynamic or (name is not None and METRIC_NAME.match(name) is not None)
    value_ok, numeric_looking = _value_ok(value)
    if name_valid:
        metric_like = True
    else:
        metric_like = name is not None and len(name.split()) <= 4 and "\n" not in name and numeric_looking
    return Shape(name, dynamic, name_valid, tuple(value), value_ok, metric_like)


def _strip_value(value: list[Segment]) -> list[Segment]:
    out = list(value)
    if out and isinstance(out[0], str):
        out[0] = out[0].lstrip(" \t")
    if out and isinstance(out[-1], str):
        tail = out[-1]
        if "\n" in tail and not tail.split("\n", 1)[1].strip():
            tail = tail.split("\n", 1)[0]
        out[-1] = tail.rstrip(" \t")
    return [s for s in out if s != ""]


NON_NUMERIC = (
    ast.JoinedStr,
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
    ast.Compare,
    ast.BoolOp,
)


def _value_ok(value: list[Segment]) -> tuple[bool, bool]:
    """(the value renders as a number, the value looks like a metric value)."""
    if len(value) == 1 and isinstance(value[0], str):
        ok = NUMBER.match(value[0]) is not None
        return ok, ok
    if not isinstance(value[0], Hole):
        return False, False
    rest = value[1:]
    if rest and not (len(rest) == 1 and isinstance(rest[0], str) and rest[0] == "%"):
        return False, _numeric_looking(value[0])
    hole = value[0]
    expr = hole.expr
    if isinstance(expr, NON_NUMERIC) or (
        (isinstance(expr, ast.Constant) and not isinstance(expr.value, int | float))
        or (isinstance(expr, ast.Constant) and isinstance(expr.value, bool))
    ):
        return False, False
    spec_type = hole.spec[-1:] if hole.spec else ""
    if spec_type in ("s", "r", "c", "x", "X", "o", "b", "a"):
        return spec_type == "s" or spec_type == "r", _numeric_looking(hole)
    return True, _numeric_looking(hole)


def _numeric_looking(hole: Hole) -> bool:
    spec_type = hole.spec[-1:] if hole.spec else ""
    if spec_type and spec_type in NUMERIC_SPEC_TYPES:
        return True
    if hole.expr is None:
        return False
    names = [n.id for n in walk(hole.expr) if isinstance(n, ast.Name)]
    names += [n.attr for n in walk(hole.expr) if isinstance(n, ast.Attribute)]
    return any(METRIC_WORDS.search(n) for n in names)


def line_is_metric(text: str) -> bool:
    return SCORE_LINE.match(text) is not None
