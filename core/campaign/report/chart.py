"""The report's charts as inline SVG, rendered here so they show with JavaScript off.

Scores: one row per measured commit in rank order (labels never rotate or clip), a dot per score with its
±2 SE error bar, the baseline as a dashed line in a ±2 SE band; rejected (✕) and failed (▲) get rows of their
own below the score axis. Trend: every campaign's best score over time, one line per evaluator version, never
joined across a version boundary. Each chart comes in a wide and a narrow layout; CSS shows the one that fits.
Colours come from CSS classes (light and dark), shapes carry the status on their own.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from core.campaign.report.model import ReportModel, ReportRow, TrendPoint
from core.campaign.scoreboard import fmt_delta, fmt_score

ROW_H = 22
_e = html.escape
# Chart labels lose the prefix all refs share, so their start tells them apart: keep more of it.
_HEAD_SHARE = 0.65
_XFn = Callable[[int], float]
_YFn = Callable[[float], float]


@dataclass(frozen=True)
class Layout:
    """Geometry of one chart variant: total width, the label column, the characters a label may keep."""

    name: str
    width: int
    label_w: int
    label_chars: int
    reason_chars: int


WIDE = Layout("wide", 880, 250, 38, 90)
NARROW = Layout("narrow", 360, 134, 20, 30)


def nice_step(span: float, count: int = 5) -> float:
    """A step of 1, 2 or 5 × 10^k giving about `count` intervals over `span`."""
    raw = span / max(1, count)
    if not math.isfinite(raw) or raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power * 1.0000001:
            return factor * power
    return 10 * power


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Tick values covering [lo, hi], on a 1/2/5 × 10^k grid; a zero-width range is widened first."""
    if hi < lo:
        lo, hi = hi, lo
    if hi - lo < 1e-12:
        pad = abs(lo) * 0.05 or 0.5
        lo, hi = lo - pad, hi + pad
    step = nice_step(hi - lo, count)
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)]


def tick_text(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step))) if step > 0 else 0
    text = f"{value:.{min(decimals, 10)}f}"
    return "0" if text.strip("-0.") == "" else text


def shorten_middle(text: str, limit: int, head_share: float = 0.5) -> str:
    """`text` in at most `limit` characters, cut from the middle (refs differ at both ends); `head_share` of
    what is kept comes from the start."""
    if len(text) <= limit:
        return text
    keep = max(2, limit - 1)
    head = max(1, min(keep - 1, round(keep * head_share)))
    return text[:head] + "…" + text[len(text) - (keep - head) :]


# ------------------------------------------------------------------------------------------------ scores


@dataclass(frozen=True)
class _Scale:
    lo: float
    hi: float
    x0: float
    x1: float

    def x(self, value: float) -> float:
        return self.x0 + (value - self.lo) / (self.hi - self.lo) * (self.x1 - self.x0)


def _extent(model: ReportModel) -> list[float]:
    values: list[float] = []
    for row in model.ranked:
        if row.score is None:
            continue
        values.append(row.score)
        if row.stderr is not None:
            values += [row.score - 2 * row.stderr, row.score + 2 * row.stderr]
    if model.baseline_score is not None and model.baseline_se is not None:
        values += [model.baseline_score - 2 * model.baseline_se, model.baseline_score + 2 * model.baseline_se]
    return [v for v in values if math.isfinite(v)] or [0.0, 1.0]


def score_chart(model: ReportModel, layout: Layout) -> str:
    """The ranked scores (and the unscored rows below them) as one SVG in `layout`."""
    ranked, unscored = model.ranked, model.unscored
    ticks = nice_ticks(min(_extent(model)), max(_extent(model)), 4 if layout is NARROW else 6)
    top = 30
    plot_h = len(ranked) * ROW_H
    axis_y = top + plot_h
    unscored_top = (axis_y + 34 if ranked else top) + (18 if unscored else 0)
    height = unscored_top + len(unscored) * ROW_H + 8
    scale = _Scale(ticks[0], ticks[-1], layout.label_w + 12, layout.width - 14)
    metric = _e(model.header.metric)
    parts = [
        f'<svg class="chart scores {layout.name}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 '
        f'{layout.width} {height}" width="100%" role="group" aria-label="Scores ({metric}), ranked">',
        _legend(layout),
    ]
    if ranked:  # nothing scored: no score axis, only the rows that have no place on it
        parts.append(
            f'<rect class="plot" x="{scale.x0:.1f}" y="{top}" width="{scale.x1 - scale.x0:.1f}" height="{plot_h}"/>'
        )
        parts += _grid(ticks, scale, top, axis_y)
        parts += _baseline(model, scale, top, axis_y)
    prefix = common_ref_prefix(model)
    for i, row in enumerate(ranked):
        label = shorten_middle(_chart_label(row, prefix), layout.label_chars, _HEAD_SHARE)
        parts.append(
            _scored_mark(row, label, scale, top + i * ROW_H + ROW_H / 2, layout, model.header.metric)
        )
    if unscored:
        parts.append(
            f'<text class="section" x="4" y="{unscored_top - 8}">not scored (no place on the '
            f"{metric} axis)</text>"
        )
    for i, row in enumerate(unscored):
        label = shorten_middle(_chart_label(row, prefix), layout.label_chars, _HEAD_SHARE)
        parts.append(_unscored_mark(row, label, unscored_top + i * ROW_H + ROW_H / 2, layout))
    parts.append("</svg>")
    return "".join(parts)


def _legend(layout: Layout) -> str:
    items = [
        ('<path class="m-winner" d="M0,-6 L1.8,-1.9 6,-1.9 2.6,0.8 3.8,5 0,2.5 -3.8,5 -2.6,0.8 -6,-1.9 '
         '-1.8,-1.9Z"/>', "winner"),
        ('<circle class="m-scored" r="4.5"/>', "scored"),
        ('<path class="m-base" d="M0,-6 6,0 0,6 -6,0Z"/>', "baseline ±2 SE"),
        ('<path class="m-rejected" d="M-4,-4 4,4 M-4,4 4,-4"/>', "rejected"),
        ('<path class="m-failed" d="M0,-5.5 5.5,4.5 -5.5,4.5Z"/>', "failed"),
    ]  # fmt: skip
    out = ['<g class="legend" aria-hidden="true">']
    x = 10.0
    for shape, text in items:
        label = text if layout is WIDE else text.split(" ")[0]
        out.append(f'<g transform="translate({x:.0f},12)">{shape}<text x="10" y="4">{label}</text></g>')
        x += 24 + len(label) * (6.4 if layout is WIDE else 5.6)
    out.append("</g>")
    return "".join(out)


def _grid(ticks: Sequence[float], scale: _Scale, top: float, axis_y: float) -> list[str]:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    out = []
    for value in ticks:
        x = scale.x(value)
        out.append(f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{axis_y}"/>')
        out.append(
            f'<text class="tick" x="{x:.1f}" y="{axis_y + 16}" text-anchor="middle">{tick_text(value, step)}</text>'
        )
    return out


def _baseline(model: ReportModel, scale: _Scale, top: float, axis_y: float) -> list[str]:
    base = model.baseline_score
    if base is None:
        return []
    out = []
    if model.baseline_se is not None and model.baseline_se > 0:
        x_lo, x_hi = scale.x(base - 2 * model.baseline_se), scale.x(base + 2 * model.baseline_se)
        out.append(
            f'<rect class="band" x="{x_lo:.1f}" y="{top}" width="{max(0.5, x_hi - x_lo):.1f}" '
            f'height="{axis_y - top}"><title>baseline ±2 SE: {_e(fmt_score(base - 2 * model.baseline_se))}'
            f" to {_e(fmt_score(base + 2 * model.baseline_se))}</title></rect>"
        )
    x = scale.x(base)
    out.append(f'<line class="baseline" x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{axis_y}"/>')
    return out


def _scored_mark(row: ReportRow, label: str, scale: _Scale, y: float, layout: Layout, metric: str) -> str:
    assert row.score is not None
    kind = "base" if row.is_baseline else ("winner" if row.is_winner else "scored")
    x = scale.x(row.score)
    described = f"{row.ref}: {metric} {row.score_text}"
    if not row.is_baseline:
        described += f", {fmt_delta(row.delta, row.stderr)} vs baseline"
    described += f", {row.label}" + (f", rank {row.rank}" if row.rank else "")
    out = [
        f'<g class="mark {kind}" data-ref="{_e(row.ref)}" role="img" aria-label="{_e(described)}">',
        f"<title>{_e(described)}</title>",
        f'<rect class="hit" x="0" y="{y - ROW_H / 2:.1f}" width="{layout.width}" height="{ROW_H}"/>',
        f'<text class="label" x="{layout.label_w}" y="{y + 4:.1f}" text-anchor="end">{_e(label)}</text>',
    ]
    if row.stderr is not None and row.stderr > 0:
        x_lo, x_hi = scale.x(row.score - 2 * row.stderr), scale.x(row.score + 2 * row.stderr)
        out.append(
            f'<path class="errbar" d="M{x_lo:.1f},{y:.1f}H{x_hi:.1f}M{x_lo:.1f},{y - 4:.1f}V{y + 4:.1f}'
            f'M{x_hi:.1f},{y - 4:.1f}V{y + 4:.1f}"/>'
        )
    out.append(_shape(kind, x, y))
    out.append("</g>")
    return "".join(out)


def common_ref_prefix(model: ReportModel) -> str:
    """The prefix every candidate ref shares, up to a separator (left out of chart labels), or ""."""
    refs = [r.ref for r in model.rows if not r.is_baseline]
    if len(refs) < 2:
        return ""
    first, last = min(refs), max(refs)  # the common prefix of all is that of the extremes
    shared = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), len(first))
    prefix = first[:shared]
    prefix = prefix[: max(prefix.rfind(sep) for sep in "/-_.") + 1]
    return prefix if all(len(ref) > len(prefix) for ref in refs) else ""


def _chart_label(row: ReportRow, prefix: str) -> str:
    """The label a chart row shows: its rank (as in the table) and its ref without the shared prefix."""
    if row.is_baseline:
        return f"{row.ref} (baseline)"
    ref = row.ref.removeprefix(prefix) if prefix else row.ref
    return f"{row.rank}. {ref}" if row.rank else ref


def _shape(kind: str, x: float, y: float) -> str:
    t = f'transform="translate({x:.1f},{y:.1f})"'
    if kind == "winner":
        return (
            f'<path class="m-winner" {t} d="M0,-7.5 L2.2,-2.4 7.5,-2.4 3.2,1 4.7,6.3 0,3.1 -4.7,6.3 -3.2,1 '
            '-7.5,-2.4 -2.2,-2.4Z"/>'
        )
    if kind == "base":
        return f'<path class="m-base" {t} d="M0,-6.5 6.5,0 0,6.5 -6.5,0Z"/>'
    if kind == "rejected":
        return f'<path class="m-rejected" {t} d="M-5,-5 5,5 M-5,5 5,-5"/>'
    if kind == "failed":
        return f'<path class="m-failed" {t} d="M0,-6 6,5 -6,5Z"/>'
    return f'<circle class="m-scored" cx="{x:.1f}" cy="{y:.1f}" r="5"/>'


def _unscored_mark(row: ReportRow, label: str, y: float, layout: Layout) -> str:
    kind = row.group
    described = f"{row.ref}: {row.label}" + (f", {row.reason}" if row.reason else "")
    x = layout.label_w + 22
    return (
        f'<g class="mark {kind}" data-ref="{_e(row.ref)}" role="img" aria-label="{_e(described)}">'
        f"<title>{_e(described)}</title>"
        f'<rect class="hit" x="0" y="{y - ROW_H / 2:.1f}" width="{layout.width}" height="{ROW_H}"/>'
        f'<text class="label" x="{layout.label_w}" y="{y + 4:.1f}" text-anchor="end">'
        f"{_e(label)}</text>"
        f"{_shape(kind, x, y)}"
        f'<text class="reason" x="{x + 14}" y="{y + 4:.1f}">'
        f"{_e(shorten_middle(row.reason or row.status, layout.reason_chars))}</text></g>"
    )


# ------------------------------------------------------------------------------------------------ trend


def trend_chart(points: Sequence[TrendPoint], current: str, layout: Layout) -> str:
    """Best score per campaign in time order; a line joins only neighbours of the same evaluator version."""
    shown = [p for p in points if p.score is not None]
    if not shown:
        return ""
    values = [p.score for p in shown if p.score is not None]
    pad = (max(values) - min(values)) * 0.06
    ticks = nice_ticks(min(values) - pad, max(values) + pad, 4)
    top, bottom, left, right = 34, 150, 52, layout.width - 14
    n = len(shown)
    gap = (right - left) / n

    def x_of(i: int) -> float:
        return left + gap * (i + 0.5)

    def y_of(v: float) -> float:
        return bottom - (v - ticks[0]) / (ticks[-1] - ticks[0]) * (bottom - top)

    metric = _e(shown[0].metric)
    parts = [
        f'<svg class="chart trend {layout.name}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 '
        f'{layout.width} {bottom + 40}" width="100%" role="group" aria-label="Best {metric} per campaign over '
        'time, one line per evaluator version">',
        f'<rect class="plot" x="{left}" y="{top}" width="{right - left}" height="{bottom - top}"/>',
    ]
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    for value in ticks:
        y = y_of(value)
        parts.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
                     f"{tick_text(value, step)}</text>")  # fmt: skip
    parts += _version_lines(shown, x_of, gap, top, bottom)
    parts += _trend_marks(shown, current, x_of, y_of, layout, bottom)
    parts.append("</svg>")
    return "".join(parts)


def _version_lines(
    points: Sequence[TrendPoint], x_of: _XFn, gap: float, top: float, bottom: float
) -> list[str]:
    out = []
    for i, point in enumerate(points):
        if i == 0 or point.evaluator_id != points[i - 1].evaluator_id:
            x = x_of(i) - gap / 2
            if i > 0:
                out.append(
                    f'<line class="boundary" x1="{x:.1f}" x2="{x:.1f}" y1="{top - 18}" y2="{bottom}"/>'
                )
            out.append(
                f'<text class="version" x="{x + 4:.1f}" y="{top - 6}">{_e(_version_name(point))}'
                f"<title>evaluator {_e(point.evaluator_id)}</title></text>"
            )
    return out


def _version_name(point: TrendPoint) -> str:
    return f"v{point.version}" if point.version else f"unregistered {point.evaluator_id[:8]}"


def _trend_marks(
    points: Sequence[TrendPoint], current: str, x_of: _XFn, y_of: _YFn, layout: Layout, bottom: float
) -> list[str]:
    out = []
    label_every = max(1, math.ceil(len(points) / (8 if layout is WIDE else 3)))
    for i, point in enumerate(points):
        assert point.score is not None
        x, y = x_of(i), y_of(point.score)
        prev = points[i - 1] if i else None
        if prev is not None and prev.evaluator_id == point.evaluator_id and prev.score is not None:
            out.append(
                f'<line class="trendline" x1="{x_of(i - 1):.1f}" y1="{y_of(prev.score):.1f}" x2="{x:.1f}" '
                f'y2="{y:.1f}"/>'
            )
        kind = "current" if point.campaign_id == current else "past"
        described = (
            f"campaign {point.campaign_id} ({_when(point.when)}): best {point.metric} {fmt_score(point.score)}, "
            f"evaluator {_version_name(point)}"
        )
        out.append(
            f'<g class="tmark {kind}" role="img" aria-label="{_e(described)}"><title>{_e(described)}</title>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{6 if kind == "current" else 4.5}"/></g>'
        )
        if i % label_every == 0 or kind == "current":
            out.append(
                f'<text class="tick" x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">{_e(_when(point.when, True))}'
                "</text>"
            )
    return out


def _when(text: str, short: bool = False) -> str:
    try:
        moment = datetime.fromisoformat(text)
    except (ValueError, TypeError):
        return text or "?"
    return f"{moment:%m-%d %H:%M}" if short else f"{moment:%Y-%m-%d %H:%M} UTC"
