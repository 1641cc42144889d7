"""The shape of a rendered line: split at its first `:` into a name and a value (SPEC §3.1).

A line is metric-like when its name is a valid metric name (or computed at run time), or a short literal
name with a value that looks numeric (a numeric format spec, or a variable named like a metric: `auc`,
`score`, `loss`...). `value_ok` says whether the value renders as a number the score parser accepts.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from core.patterns import LazyPattern
from core.rules.evaluator.analysis.ast_utils import walk
from core.rules.evaluator.metric.rendering import Hole, Segment
from core.scoreline import MANIFEST_PREFIX, METRIC_NAME

__all__ = ["Shape", "classify"]

NUMBER = LazyPattern(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?%?$")
NUMERIC_SPEC_TYPES = frozenset("eEfFgGn%d")
METRIC_WORDS = LazyPattern(
    r"auc|acc|score|rmse|mse|mae|mape|f1|loss|err|precision|recall|r2|metric|value|result|ndcg|map|bleu|rouge"
    r"|corr|logloss|perplexity|ppl|pass|mean|avg|rate",
    re.IGNORECASE,
)


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
