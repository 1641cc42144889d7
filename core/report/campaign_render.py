"""Campaign results as text (a rich table), JSON (SPEC §5.3 schema 1) and one self-contained HTML file.

The HTML report has no external resources: inline CSS and an inline SVG chart (scores against the baseline
line; rejected and failed candidates marked below the axis), so it can be mailed, attached to a CI run or
served by the dashboard as is. Everything taken from candidates is escaped.
"""

from __future__ import annotations

import html
import io
import json

from rich.console import Console
from rich.table import Table

from core.campaign.model import CampaignResult
from core.campaign.scoreboard import (
    display_rows,
    fmt_delta,
    fmt_score,
    no_winner_reason,
    note_for,
    rejected_report,
    short,
)

_STATUS_STYLE = {"scored": "green", "rejected": "bold red", "failed": "yellow"}


def render_json(result: CampaignResult) -> str:
    return json.dumps(result.to_json(), indent=2, allow_nan=False)


def render_text(result: CampaignResult, *, width: int = 120, color: bool = False) -> str:
    """Scoreboard table, winner line and the rejected-candidate report."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=color, no_color=not color, highlight=False)
    ev = result.evaluator
    version = f"v{ev.version}" if ev.version else "unregistered"
    console.print(
        f"Campaign {result.campaign_id}: {result.metric_name} ({result.direction}), evaluator {version} "
        f"{ev.evaluator_id[:12]} ({ev.provenance}), sandbox {result.sandbox}"
    )
    base = result.baseline
    base_text = fmt_score(base.score) if base.status == "scored" else f"{base.status}: {base.reason}"
    console.print(f"Baseline {base.ref} ({short(base.commit)}): {base_text}")
    table = Table(show_lines=False, header_style="bold")
    for column in (
        "#",
        "candidate",
        "commit",
        "status",
        result.metric_name,
        "Δ vs baseline",
        "findings",
        "time",
    ):
        table.add_column(column, overflow="fold")
    table.add_column("note", overflow="fold", max_width=48)
    for row in display_rows(result):
        style = _STATUS_STYLE.get(row.status, "")
        rank = f"★{row.rank}" if row.is_winner else row.rank
        table.add_row(
            rank,
            row.ref,
            row.commit,
            f"[{style}]{row.status}[/]" if style else row.status,
            row.score,
            row.delta,
            row.findings,
            row.duration,
            row.note,
        )
    console.print(table)
    winner = result.winner
    if winner is not None:
        delta = next((r.delta for r in result.rows if r.record.index == winner.index), None)
        console.print(
            f"Winner: {winner.ref} ({short(winner.commit)}) {fmt_score(winner.score)} {fmt_delta(delta, None)}"
        )
    else:
        console.print(f"Winner: none ({no_winner_reason(result)})", markup=False)
    if result.delivered_branch:
        console.print(f"Delivered: branch {result.delivered_branch}")
    console.print(
        f"{result.scored_candidates} scored, {result.rejected_candidates} rejected, {result.failed_candidates} failed"
    )
    report = rejected_report(result)
    if report:
        console.print("\nRejected candidates:")
        for line in report:
            console.print(line, markup=False)
    for note in result.notes:
        console.print(f"note: {note}", markup=False)
    return buffer.getvalue()


# ------------------------------------------------------------------------------------------------ HTML

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#1f2328;padding:0 1rem}
h1{font-size:1.4rem;margin-bottom:.2rem}h2{font-size:1.1rem;margin-top:2rem}
.meta{color:#57606a;font-size:.9rem}.meta code{background:#f6f8fa;padding:0 .3rem;border-radius:4px}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d0d7de;vertical-align:top}
th{background:#f6f8fa}td.num{font-variant-numeric:tabular-nums;white-space:nowrap}
.scored{color:#1a7f37;font-weight:600}.rejected{color:#cf222e;font-weight:600}.failed{color:#9a6700;font-weight:600}
tr.winner td{background:#dafbe1}.badge{display:inline-block;background:#1a7f37;color:#fff;border-radius:10px;padding:0 .5rem;font-size:.75rem;margin-left:.3rem}
.summary span{margin-right:1.2rem}.finding{font-family:ui-monospace,monospace;font-size:.85rem}
pre{background:#f6f8fa;padding:.5rem;overflow:auto;max-height:12rem;font-size:.8rem}
svg text{font-family:system-ui,sans-serif}
"""


def render_html(result: CampaignResult) -> str:
    e = html.escape
    ev = result.evaluator
    version = f"version {ev.version}" if ev.version else "unregistered (version 0)"
    base = result.baseline
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Proctor campaign {e(result.campaign_id)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>Campaign <code>{e(result.campaign_id)}</code></h1>",
        '<p class="meta">',
        f"Metric <code>{e(result.metric_name)}</code> ({e(result.direction)}) · ",
        f"evaluator {e(version)} <code>{e(ev.evaluator_id)}</code> ({e(ev.provenance)}) · ",
        f"sandbox {e(result.sandbox)}</p>",
    ]
    if result.goal:
        parts.append(f'<p class="meta">Goal: {e(result.goal)}</p>')
    base_text = fmt_score(base.score) if base.status == "scored" else f"{base.status}: {base.reason}"
    parts.append(
        f"<p>Baseline <strong>{e(base.ref)}</strong> <code>{e(short(base.commit))}</code>: {e(base_text)}</p>"
    )
    winner = result.winner
    parts.append('<p class="summary">')
    if winner is not None:
        parts.append(f"<span>Winner: <strong>{e(winner.ref)}</strong> {e(fmt_score(winner.score))}</span>")
    else:
        parts.append(f"<span>Winner: none ({e(no_winner_reason(result))})</span>")
    parts.append(
        f'<span class="scored">{result.scored_candidates} scored</span>'
        f'<span class="rejected">{result.rejected_candidates} rejected</span>'
        f'<span class="failed">{result.failed_candidates} failed</span>'
    )
    if result.delivered_branch:
        parts.append(f"<span>Delivered: <code>{e(result.delivered_branch)}</code></span>")
    parts.append("</p>")
    parts.append("<h2>Scores</h2>")
    parts.append(render_chart(result))
    parts.append("<h2>Scoreboard</h2>")
    parts.append(
        "<table><thead><tr><th>#</th><th>candidate</th><th>commit</th><th>status</th>"
        f"<th>{e(result.metric_name)}</th><th>Δ vs baseline</th><th>findings</th><th>time</th><th>note</th>"
        "</tr></thead><tbody>"
    )
    for row in display_rows(result):
        badge = '<span class="badge">winner</span>' if row.is_winner else ""
        parts.append(
            f'<tr class="{"winner" if row.is_winner else ""}">'
            f"<td>{e(row.rank)}</td><td>{e(row.ref)}{badge}</td><td><code>{e(row.commit)}</code></td>"
            f'<td class="{e(row.status)}">{e(row.status)}</td><td class="num">{e(row.score)}</td>'
            f'<td class="num">{e(row.delta)}</td><td>{e(row.findings)}</td><td class="num">{e(row.duration)}</td>'
            f"<td>{e(row.note)}</td></tr>"
        )
    parts.append("</tbody></table>")
    parts.append(_findings_html(result))
    parts.append(_external_html(result))
    parts.append(_failures_html(result))
    for note in result.notes:
        parts.append(f'<p class="meta">Note: {e(note)}</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _findings_html(result: CampaignResult) -> str:
    e = html.escape
    items = []
    for row in result.rows:
        record = row.record
        for finding in record.findings:
            kind = "rejects" if finding.severity == "reject" else "flag"
            items.append(
                f'<li class="finding"><strong>{e(finding.code)}</strong> ({kind}) {e(record.ref)}: '
                f"<code>{e(finding.path)}</code> — {e(finding.detail)}</li>"
            )
    if not items:
        return "<h2>Findings</h2><p>No integrity findings.</p>"
    return "<h2>Findings</h2><ul>" + "".join(items) + "</ul>"


def _external_html(result: CampaignResult) -> str:
    e = html.escape
    rows = [row.record for row in result.rows if row.record.external is not None]
    if not rows:
        return ""
    out = [
        "<h2>External metrics (observational)</h2><table><thead><tr><th>candidate</th><th>metrics</th>"
        "<th>error</th></tr></thead><tbody>"
    ]
    for record in rows:
        assert record.external is not None
        metrics = ", ".join(f"{k}={v:.6g}" for k, v in sorted(record.external.metrics.items()))
        out.append(
            f"<tr><td>{e(record.ref)}</td><td>{e(metrics)}</td><td>{e(record.external.error)}</td></tr>"
        )
    out.append("</tbody></table>")
    return "".join(out)


def _failures_html(result: CampaignResult) -> str:
    e = html.escape
    failed = [row.record for row in result.rows if row.record.status == "failed"]
    if result.baseline.status == "failed":
        failed.insert(0, result.baseline)
    if not failed:
        return ""
    out = ["<h2>Failures</h2>"]
    for record in failed:
        out.append(
            f"<h3>{e(record.ref)} <code>{e(short(record.commit))}</code></h3><p>{e(note_for(record))}</p>"
        )
        output_tail = (record.stderr_tail or record.stdout_tail)[-2000:]
        if output_tail:
            out.append(f"<pre>{e(output_tail)}</pre>")
    return "".join(out)


def render_chart(result: CampaignResult, *, width: int = 900, height: int = 380) -> str:
    """Inline SVG: one column per candidate; scored as dots, the baseline as a dashed line, rejected (✕) and
    failed (!) marked in a band below the plot so they are seen, not hidden."""
    e = html.escape
    rows = list(result.rows)
    # Legend on top; below the plot the rejected/failed band, then candidate names slanting down-left.
    left, right, top, plot_bottom = 70, 20, 36, height - 150
    band_y = plot_bottom + 25
    label_y = band_y + 22
    values = [r.record.score for r in rows if r.record.status == "scored" and r.record.score is not None]
    base_score = result.baseline.score if result.baseline.status == "scored" else None
    if base_score is not None:
        values.append(base_score)
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    if hi - lo < 1e-12:
        lo, hi = lo - 0.5 if lo == 0 else lo - abs(lo) * 0.05, hi + 0.5 if hi == 0 else hi + abs(hi) * 0.05
    pad = (hi - lo) * 0.1
    lo, hi = lo - pad, hi + pad
    n = max(1, len(rows))
    step = (width - left - right) / n

    def x_of(i: int) -> float:
        return left + step * (i + 0.5)

    def y_of(v: float) -> float:
        return plot_bottom - (v - lo) / (hi - lo) * (plot_bottom - top)

    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Campaign scores" '
        f'viewBox="0 0 {width} {height}" width="100%" style="max-width:{width}px">',
        f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{plot_bottom - top}" fill="#fff" '
        'stroke="#d0d7de"/>',
    ]
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        y = y_of(v)
        svg.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eaeef2"/>')
        svg.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="#57606a">'
            f"{e(fmt_score(v))}</text>"
        )
    if base_score is not None:
        y = y_of(base_score)
        svg.append(
            f'<line class="baseline" x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#0969da" '
            'stroke-width="2" stroke-dasharray="6 4"/>'
        )
        svg.append(
            f'<text x="{width - right - 4}" y="{y - 6:.1f}" font-size="11" text-anchor="end" '
            f'fill="#0969da">baseline {e(fmt_score(base_score))}</text>'
        )
    svg.append(
        f'<text x="{left - 6}" y="{band_y + 4}" font-size="11" text-anchor="end" fill="#57606a">'
        "not scored</text>"
    )
    winner = result.winner.index if result.winner is not None else None
    for i, row in enumerate(rows):
        record = row.record
        x = x_of(i)
        label = record.ref if len(record.ref) <= 18 else "…" + record.ref[-17:]
        title = f"{record.ref}: {record.status}"
        if record.status == "scored" and record.score is not None:
            y = y_of(record.score)
            color = "#1a7f37" if record.index == winner else "#57606a"
            radius = 7 if record.index == winner else 5
            title += f" {fmt_score(record.score)}"
            svg.append(
                f'<circle class="scored" cx="{x:.1f}" cy="{y:.1f}" r="{radius}" fill="{color}">'
                f"<title>{e(title)}</title></circle>"
            )
        elif record.status == "rejected":
            d = 6
            title += " " + ", ".join(record.finding_codes)
            svg.append(
                f'<g class="rejected" stroke="#cf222e" stroke-width="3"><title>{e(title)}</title>'
                f'<line x1="{x - d:.1f}" y1="{band_y - d}" x2="{x + d:.1f}" y2="{band_y + d}"/>'
                f'<line x1="{x - d:.1f}" y1="{band_y + d}" x2="{x + d:.1f}" y2="{band_y - d}"/></g>'
            )
        else:
            svg.append(
                f'<g class="failed"><title>{e(title)} {e(record.reason)}</title>'
                f'<polygon points="{x:.1f},{band_y - 7} {x - 7:.1f},{band_y + 6} {x + 7:.1f},{band_y + 6}" '
                'fill="#d4a72c"/>'
                f'<text x="{x:.1f}" y="{band_y + 5}" font-size="10" text-anchor="middle" fill="#fff">!</text></g>'
            )
        svg.append(
            f'<text x="{x:.1f}" y="{label_y}" font-size="11" text-anchor="end" fill="#1f2328" '
            f'transform="rotate(-30 {x:.1f} {label_y})">{e(label)}</text>'
        )
    svg.append(
        f'<g font-size="11" fill="#57606a"><circle cx="{left + 8}" cy="12" r="5" fill="#1a7f37"/>'
        f'<text x="{left + 18}" y="16">winner</text>'
        f'<circle cx="{left + 78}" cy="12" r="5" fill="#57606a"/><text x="{left + 88}" y="16">scored</text>'
        f'<text x="{left + 150}" y="16" fill="#cf222e">✕ rejected</text>'
        f'<text x="{left + 230}" y="16" fill="#9a6700">▲ failed</text>'
        f'<line x1="{left + 300}" x2="{left + 330}" y1="12" y2="12" stroke="#0969da" '
        f'stroke-width="2" stroke-dasharray="6 4"/><text x="{left + 336}" y="16">baseline</text></g>'
    )
    svg.append("</svg>")
    return "".join(svg)
