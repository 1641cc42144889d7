"""Which print is the evaluator's metric line (SPEC §3.1).

Of the `name: value`-shaped prints (`shape.py`, over what `rendering.py` says each print writes) on the
normal exit path of the approximate execution order (`flow.py`), the metric print is the last one whose name
is the config's `metric`, else the brief's metric, else a known metric name (accuracy, auc, f1, rmse, mrr,
exact_match, pass@k, ...) rather than a count (`Samples: 500`, `depth: 8`, a cost); only when none is, the
last metric-shaped print. Stdout prints win over stderr ones. EV002, EV003, EV004, EV005, EV006 and the
brief rule BR008 all read the answer from here.
"""

from __future__ import annotations

import ast
import itertools
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from core.brief import parse_brief, same_metric
from core.diagnostics import Range
from core.patterns import LazyPattern
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator.analysis.exit_status import StatusNames
from core.rules.evaluator.analysis.flow import Flow, Rejoin
from core.rules.evaluator.analysis.flow_steps import Step
from core.rules.evaluator.analysis.recorded import Lookup
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric.rendering import STDOUT_WRITERS, Rendered, render_output
from core.rules.evaluator.metric.shape import Shape, classify
from core.rules.evaluator.views import CHANGES, Changes, DocumentView

__all__ = [
    "MetricInfo",
    "MetricPrint",
    "clear_flows",
    "expected_metric",
    "flow_of",
    "metric_of",
    "metric_rank",
    "printed_metric",
]

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


@dataclass(frozen=True)
class MetricPrint:
    """The metric the evaluator prints last and where (the range of the print call)."""

    name: str
    range: Range


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
    ctx = EvaluatorContext.for_document("evaluate.py", source, DocumentKind.EVALUATOR, LintContext(), tree)
    info = metric_of(ctx)
    if info is None or info.shape.name is None or not info.shape.name_valid:
        return None
    return MetricPrint(info.shape.name, ctx.range_of(info.call))


class _Walked(NamedTuple):
    """A walk kept for later lints: its recorded lookups, and the chunk passes' state of the last lint in
    whose document they all held (`views.Changes`; None: unknown)."""

    reads: dict[Lookup, object]
    flow: Flow
    since: object


_FLOWS: OrderedDict[tuple[object, ...], _Walked] = OrderedDict()
_FLOWS_LOCK = threading.Lock()


def flow_of(ctx: EvaluatorContext) -> Flow:
    """The execution-order walk of the document, reused from the last lint when its lookups still hold."""
    flow = ctx.memo.get("flow")
    if isinstance(flow, Flow):
        return flow
    key = (ctx.relpath, ctx.kind, ctx.lint.config.evaluation_dir)
    with _FLOWS_LOCK:
        cached = _FLOWS.get(key)
    changes = ctx.memo.get(CHANGES)
    now = changes.now if isinstance(changes, Changes) else None
    if cached is not None and _hold(ctx, cached, cached.reads):
        flow = cached.flow.copy_for(ctx)
        kept = _Walked(cached.reads, cached.flow, now)
    else:
        view = DocumentView(ctx)
        walked = Flow(
            view,
            mark=lambda: len(view.reads),
            resume=_resumable(ctx, view, cached),
            rejoin=None if cached is None else Rejoin(cached.flow, _holds(ctx, view, cached)),
        )
        flow = walked.copy_for(ctx)
        kept = _Walked(view.reads, walked.copy_for(ctx), now)
    with _FLOWS_LOCK:
        _FLOWS[key] = kept
        _FLOWS.move_to_end(key)
        while len(_FLOWS) > 32:
            _FLOWS.popitem(last=False)
    ctx.memo["flow"] = flow
    return flow


def _hold(ctx: EvaluatorContext, cached: _Walked, reads: Mapping[Lookup, object]) -> bool:
    """Whether `reads` (some of `cached`'s) still hold: when the chunk passes compared this document with
    the one they last held in, only the lookups the edit may have changed are asked again."""
    changes = ctx.memo.get(CHANGES)
    if isinstance(changes, Changes):
        reads = changes.suspects(cached.since, reads)
    return ctx.reads_hold(reads)


def _resumable(ctx: EvaluatorContext, view: DocumentView, cached: _Walked | None) -> tuple[Flow, int] | None:
    """Where the last walk can be taken up again (`Flow`'s `resume`): after the top-level statements it
    shares with this document, when every lookup it recorded before them still holds. The view then starts
    with those lookups, in the same order, so the boundaries kept from the last walk keep their marks."""
    if cached is None:
        return None
    reads, earlier = cached.reads, cached.flow
    keep = earlier.resumable_at(ctx.flow_body())
    if keep == 0:
        return None
    boundary = earlier.boundaries[keep]
    prefix = dict(itertools.islice(reads.items(), boundary.mark))
    # The statements were compared by identity; the body itself changed (that is why the walk runs).
    if not _hold(ctx, cached, {read: value for read, value in prefix.items() if read != _FLOW_BODY}):
        return None
    view.reads.update(prefix)
    body = view.flow_body()
    if not StatusNames(view).module_exits_hold(boundary.statuses, body):
        view.reads.clear()
        return None
    return earlier, keep


def _holds(ctx: EvaluatorContext, view: DocumentView, cached: _Walked) -> Callable[[], int | None]:
    """`Rejoin`'s check: whether every lookup the earlier walk recorded still holds (the module body aside:
    its statements were compared by identity); when they do, they are recorded in `view` too. A lookup
    the rest of the walk made may have been recorded first before the point it rejoins at, so all count."""

    def holds() -> int | None:
        others = {read: value for read, value in cached.reads.items() if read != _FLOW_BODY}
        if not _hold(ctx, cached, others):
            return None
        recorded = view.reads
        for read, value in others.items():
            recorded.setdefault(read, value)  # the same answer, as it holds (the body is this walk's)
        return len(recorded)

    return holds


_FLOW_BODY = Lookup("flow_body")


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
