"""The campaign report as one self-contained HTML file: inline CSS, SVG and a small sorting script.

It loads nothing (a Content-Security-Policy forbids any fetch and any script but the sorter's hash), reads at
360 px and on wide screens, follows the reader's light or dark scheme, and works with JavaScript off: the
table arrives ranked and the charts are drawn here. Everything that came from a candidate (refs, messages,
output, paths) goes through `html.escape` exactly once, at the point it is written.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Sequence

from core.campaign.report.chart import NARROW, WIDE, common_ref_prefix, score_chart, trend_chart
from core.campaign.report.model import Header, ReportFinding, ReportModel, ReportRow, TrendPoint
from core.campaign.scoreboard import fmt_score, short

_e = html.escape

_CSS = """
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;--soft:#f6f8fa;
--plot:#fff;--grid:#eaeef2;--win:#1a7f37;--scored:#59636e;--base:#0969da;--rej:#cf222e;--fail:#9a6700;
--winbg:#dafbe1;--hover:rgba(9,105,218,.08);--danger-bg:#ffebe9;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--border:#3d444d;
--soft:#151b23;--plot:#0d1117;--grid:#262c36;--win:#3fb950;--scored:#9198a1;--base:#4493f8;--rej:#f85149;
--fail:#d29922;--winbg:#12261e;--hover:rgba(68,147,248,.12);--danger-bg:#3c1618;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1180px;margin:0 auto;padding:1rem}
h1{font-size:1.35rem;margin:.4rem 0}h2{font-size:1.1rem;margin:1.8rem 0 .6rem}
a{color:var(--link)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}
code{overflow-wrap:anywhere}
.banner{border:2px solid var(--rej);background:var(--danger-bg);border-radius:6px;padding:.6rem .8rem;margin:0 0 .8rem}
.verdict{font-size:1.05rem;margin:.4rem 0 1rem;padding:.6rem .8rem;border-left:4px solid var(--win);background:var(--soft);
border-radius:0 6px 6px 0;overflow-wrap:anywhere}
.verdict.none{border-left-color:var(--muted)}
.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.15rem 1rem;margin:0;font-size:.9rem}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}
.counts span{margin-right:1rem;white-space:nowrap}
.s-scored,.s-winner{color:var(--win)}.s-rejected{color:var(--rej)}.s-failed{color:var(--fail)}.s-baseline{color:var(--base)}
.status{font-weight:600;white-space:nowrap}
figure{margin:0}figcaption{color:var(--muted);font-size:.85rem;margin-top:.3rem}
.chart{display:block;max-width:100%;height:auto}.chart.narrow{display:none}
@media (max-width:640px){.chart.wide{display:none}.chart.narrow{display:block}main{padding:.75rem}
.facts{gap:.2rem .6rem}}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;fill:var(--muted)}
svg .label{fill:var(--fg)}svg .section{font-weight:600}
.plot{fill:var(--plot);stroke:var(--border)}.grid{stroke:var(--grid)}
.band{fill:var(--base);fill-opacity:.14}.baseline{stroke:var(--base);stroke-width:2;stroke-dasharray:6 4}
.errbar{stroke:var(--fg);stroke-width:1.4;fill:none;opacity:.75}
.m-winner{fill:var(--win)}.m-scored{fill:var(--scored)}.m-base{fill:var(--base)}
.m-rejected{stroke:var(--rej);stroke-width:3;fill:none;stroke-linecap:round}.m-failed{fill:var(--fail)}
.hit{fill:transparent}.mark:hover .hit{fill:var(--hover)}
.trendline{stroke:var(--base);stroke-width:2}.boundary{stroke:var(--muted);stroke-dasharray:3 3}
.tmark circle{fill:var(--scored)}.tmark.current circle{fill:var(--win);stroke:var(--fg);stroke-width:1.5}
svg .version{font-weight:600}
.table-wrap{overflow-x:auto;max-width:100%;border:1px solid var(--border);border-radius:6px}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .5rem;vertical-align:top}
thead th{background:var(--soft);border-bottom:1px solid var(--border);white-space:nowrap}
thead th button{font:inherit;font-weight:600;color:inherit;background:none;border:0;padding:0;cursor:pointer}
thead th button::after{content:" ↕";color:var(--muted)}
thead th[aria-sort=ascending] button::after{content:" ↑"}thead th[aria-sort=descending] button::after{content:" ↓"}
tbody.cand{border-top:1px solid var(--border)}
tbody.cand th{font-weight:600;overflow-wrap:break-word;min-width:9rem}
tbody.cand th code{display:block;font-weight:400;color:var(--muted)}
tbody.winner tr.main{background:var(--winbg)}tbody.baseline tr.main{background:var(--hover)}
td.num{font-variant-numeric:tabular-nums;white-space:nowrap;text-align:right}
td.delta{font-variant-numeric:tabular-nums;text-align:right}.se{white-space:nowrap;color:var(--muted)}
tbody.ghead th{background:var(--soft);border-top:2px solid var(--border);font-weight:600}
tr.more td{padding-top:0}
@media (max-width:640px){#board,#board tbody,#board tr,#board td,#board th{display:block}
#board thead tr{display:flex;flex-wrap:wrap;gap:.2rem 1rem}#board thead th{padding:.4rem .5rem;border:0}
#board thead th:not([data-key]){display:none}
#board tr.main{display:grid;grid-template-columns:2rem auto minmax(0,1fr) auto;
grid-template-areas:"rank ref ref ref" "rank status score delta" "rank find find time";column-gap:.4rem}
#board .c-rank{grid-area:rank;text-align:left}#board .c-ref{grid-area:ref;min-width:0}
#board .c-score{grid-area:score}#board .c-status{grid-area:status}#board .c-delta{grid-area:delta}
#board .c-find{grid-area:find}#board .c-time{grid-area:time}#board td,#board th{padding:.15rem .5rem}
#board tr.more td{padding:.2rem .5rem .5rem}}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
summary{cursor:pointer;color:var(--muted);font-size:.85rem;overflow-wrap:anywhere}
details[open] summary{margin-bottom:.4rem}
.more h3{font-size:.85rem;margin:.6rem 0 .2rem}
.more pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);border:1px solid var(--border);
border-radius:6px;padding:.5rem;margin:0;max-height:18rem;overflow:auto}
.more ul{margin:.2rem 0;padding-left:1.2rem}
.add{color:var(--win)}.del{color:var(--rej)}.muted{color:var(--muted)}
.reason{overflow-wrap:anywhere}
footer{color:var(--muted);font-size:.8rem;margin:2rem 0 1rem}
"""

# Progressive enhancement: turns the header cells into sort buttons; each group (ranked, rejected, failed)
# sorts within itself, ties keep the ranked order. Without it the table is already in rank order.
_SCRIPT = """(function(){var t=document.getElementById("board");if(!t)return;
var hs=[].slice.call(t.querySelectorAll("thead th[data-key]"));
function v(b,k,n){var x=b.getAttribute("data-"+k);if(!n)return x||"";return x===null||x===""?NaN:parseFloat(x)}
function sort(th){var k=th.getAttribute("data-key"),n=th.getAttribute("data-type")==="num",
cur=th.getAttribute("aria-sort"),d=cur?(cur==="ascending"?-1:1):(th.getAttribute("data-first")==="descending"?-1:1);
hs.forEach(function(h){h.removeAttribute("aria-sort")});th.setAttribute("aria-sort",d===1?"ascending":"descending");
var g={};[].slice.call(t.querySelectorAll("tbody.cand")).forEach(function(b){var k2=b.getAttribute("data-group");
(g[k2]=g[k2]||[]).push(b)});Object.keys(g).sort().forEach(function(key){g[key].sort(function(a,b){
var x=v(a,k,n),y=v(b,k,n),o=a.getAttribute("data-order")-b.getAttribute("data-order"),c;
if(n){if(isNaN(x)||isNaN(y))return(isNaN(x)-isNaN(y))||o;c=(x-y)*d}else c=x.localeCompare(y)*d;return c||o});
var h=t.querySelector('tbody.ghead[data-group="'+key+'"]');if(h)t.appendChild(h);
g[key].forEach(function(b){t.appendChild(b)})})}
hs.forEach(function(th){var b=document.createElement("button");b.type="button";b.textContent=th.textContent;
th.textContent="";th.appendChild(b);b.addEventListener("click",function(){sort(th)})})})();"""

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
CSP = f"default-src 'none'; style-src 'unsafe-inline'; script-src '{SCRIPT_HASH}'; img-src data:"
_GROUP_KEYS = {"ranked": "0", "rejected": "1", "failed": "2"}
_GROUP_TITLES = {
    "rejected": "Rejected: the guard found tampering; no score, never a winner",
    "failed": "Failed: timed out, crashed or printed no score",
}
_COLUMNS = 7
_NOT_ISOLATED = ' <span class="status s-rejected">· not isolated</span>'


def render_report(model: ReportModel) -> str:
    """The whole report page for one campaign."""
    h = model.header
    body = [
        _isolation_banner(h),
        "<header>",
        f"<h1>Campaign <code>{_e(h.campaign_id)}</code></h1>",
        f'<p class="verdict{"" if h.scored else " none"}">{_e(model.verdict)}</p>',
        _facts(h),
        _counts(h),
        "</header>",
        '<section aria-labelledby="h-scores"><h2 id="h-scores">Scores</h2><figure>',
        score_chart(model, WIDE),
        score_chart(model, NARROW),
        f"<figcaption>{_caption(model)}</figcaption></figure></section>",
        '<section aria-labelledby="h-board"><h2 id="h-board">Scoreboard</h2>',
        _board(model),
        "</section>",
        _trend_section(model.trend, h.campaign_id, h.evaluator_id, h.metric),
        _notes(model.notes),
    ]
    return _page(f"Proctor campaign {h.campaign_id}", body, h.proctor_version)


def render_trend_page(points: Sequence[TrendPoint], repo: str, proctor_version: str) -> str:
    """`proctor report`: the trend of every campaign in a repository, one chart per metric."""
    metrics = sorted({p.metric for p in points})
    body = [
        "<header>",
        f"<h1>Campaigns in <code>{_e(repo)}</code></h1>",
        f'<p class="verdict none">{len(points)} campaign{"" if len(points) == 1 else "s"}, '
        f"{len({p.evaluator_id for p in points})} evaluator version(s). Scores of different evaluator versions "
        "are shown side by side, never joined or compared.</p>",
        "</header>",
    ]
    if not points:
        body.append("<p>No campaign with a scoreboard under <code>.proctor/campaigns/</code> yet.</p>")
    for metric in metrics:
        body.append(_trend_section([p for p in points if p.metric == metric], "", "", metric))
    return _page(f"Proctor campaigns: {repo}", body, proctor_version)


def _page(title: str, body: Sequence[str], version: str) -> str:
    head = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body><main>"
    )
    footer = f"<footer>Generated by Proctor {_e(version or 'unknown version')}.</footer>"
    return (
        head
        + "\n".join(part for part in body if part)
        + footer
        + f"</main><script>{_SCRIPT}</script></body></html>\n"
    )


def _isolation_banner(h: Header) -> str:
    if h.isolated:
        return ""
    reasons = "; ".join(h.not_isolated)
    return (
        '<p class="banner" role="alert"><strong>Not isolated:</strong> '
        f"{_e(reasons)} (sandbox &ldquo;{_e(h.sandbox or 'unknown')}&rdquo;). Candidate code shared the evaluator's "
        "sandbox and could read its files and answers: treat the scores as unverified.</p>"
    )


def _facts(h: Header) -> str:
    version = f"version {h.evaluator_version}" if h.evaluator_version else "unregistered (version 0)"
    duration = _duration(h.duration_s)
    items = [
        ("Started", _e(_time(h.started_at))),
        ("Finished", _e(_time(h.finished_at)) + (f" ({_e(duration)})" if duration else "")),
        ("Repository", f"<code>{_e(h.repo)}</code>"),
        ("Baseline", f"{_e(h.baseline_ref)} <code>{_e(h.baseline_commit or '—')}</code>"),
        ("Evaluator", f"{_e(version)}, {_e(h.provenance)}, <code>{_e(h.evaluator_id)}</code>"),
        ("Metric", f"<code>{_e(h.metric)}</code> ({_e(h.direction)})"),
        ("Sandbox", _e(h.sandbox or "not recorded")),
        ("Interpreter", _e(h.interpreter or "not recorded")),
        ("Proctor", _e(h.proctor_version or "not recorded")),
    ]
    if h.delivered_branch:
        items.append(("Delivered", f"branch <code>{_e(h.delivered_branch)}</code>"))
    if h.goal:
        items.append(("Goal", _e(h.goal)))
    return '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


def _counts(h: Header) -> str:
    return (
        '<p class="counts">'
        f'<span class="s-scored"><span aria-hidden="true">●</span> {h.scored} scored</span>'
        f'<span class="s-rejected"><span aria-hidden="true">✕</span> {h.rejected} rejected</span>'
        f'<span class="s-failed"><span aria-hidden="true">▲</span> {h.failed} failed</span></p>'
    )


def _caption(model: ReportModel) -> str:
    text = "Ranked best first. Dots are scores"
    if any(r.stderr for r in model.ranked):
        text += "; bars span ±2 standard errors of the difference from the baseline (paired bootstrap)"
    if model.baseline_score is not None:
        text += f"; the dashed line is the baseline ({_e(fmt_score(model.baseline_score))})"
        if model.baseline_se:
            text += ", the band its ±2 standard errors"
    prefix = common_ref_prefix(model)
    if prefix:
        text += f". Labels leave out the prefix every candidate shares, <code>{_e(prefix)}</code>"
    return text + ". Hover a row for the full ref and numbers."


def _board(model: ReportModel) -> str:
    metric = _e(model.header.metric)
    first = "descending" if model.header.direction == "maximize" else "ascending"
    out = [
        '<p class="muted">Ranked by score, best first; the baseline is a row, rejected and failed candidates '
        "are grouped below. Expand a row for the commit message, the files changed against the baseline, "
        "findings and output; click a column header to sort.</p>",
        '<div class="table-wrap"><table id="board"><caption class="sr">Scoreboard, ranked by score</caption>',
        '<thead><tr><th scope="col" data-key="order" data-type="num">#</th>'
        '<th scope="col" data-key="ref">candidate</th><th scope="col">status</th>'
        f'<th scope="col" data-key="score" data-type="num" data-first="{first}">{metric}</th>'
        '<th scope="col" data-key="delta" data-type="num" data-first="' + first + '">Δ vs baseline</th>'
        '<th scope="col">findings</th><th scope="col" data-key="time" data-type="num">time</th></tr></thead>',
    ]
    # Per-row marks only when isolation differs between rows; when none was isolated the banner says it once.
    ran = [r for r in model.rows if r.group != "rejected"]
    mark_isolation = not all(r.not_isolated for r in ran)
    group = "ranked"
    for order, row in enumerate(model.rows):
        if row.group != group:
            group = row.group
            count = sum(1 for r in model.rows if r.group == group)
            out.append(
                f'<tbody class="ghead" data-group="{_GROUP_KEYS[group]}"><tr><th colspan="{_COLUMNS}" '
                f'scope="rowgroup">{_e(_GROUP_TITLES[group])} ({count})</th></tr></tbody>'
            )
        out.append(_row(row, order, mark_isolation))
    out.append("</table></div>")
    return "".join(out)


def _row(row: ReportRow, order: int, mark_isolation: bool) -> str:
    kind = "baseline" if row.is_baseline else ("winner" if row.is_winner else row.group)
    attrs = (
        f'class="cand {kind}" data-group="{_GROUP_KEYS[row.group]}" data-order="{order}" '
        f'data-ref="{_e(row.ref)}" data-score="{_num(row.score)}" data-delta="{_num(row.delta)}" '
        f'data-time="{row.duration_s:.3f}"'
    )
    rank = str(row.rank) if row.rank else ("base" if row.is_baseline and row.group == "ranked" else "")
    status_class = "s-baseline" if row.is_baseline and row.group == "ranked" else f"s-{row.label.split()[-1]}"
    if row.group != "ranked":
        status_class = f"s-{row.group}"
    delta = _e(row.delta_text)
    if " ± " in delta:
        value, se = delta.split(" ± ", 1)
        delta = f'{value} <span class="se">± {se}</span>'
    codes = ", ".join(sorted({f.code for f in row.findings}))
    return (
        f'<tbody {attrs}><tr class="main"><td class="num c-rank">{rank}</td>'
        f'<th scope="row" class="c-ref">{_breakable(row.ref)}'
        f"<code>{_e(short(row.commit) if row.commit else '—')}</code></th>"
        f'<td class="c-status"><span class="status {status_class}"><span aria-hidden="true">{row.mark}</span> '
        f"{_e(row.label)}</span>{_NOT_ISOLATED if row.not_isolated and mark_isolation else ''}</td>"
        f'<td class="num c-score">{_e(row.score_text if row.group == "ranked" else "—")}</td>'
        f'<td class="delta c-delta">{delta}</td><td class="c-find">{_e(codes)}</td>'
        f'<td class="num c-time">{row.duration_s:.1f}s</td></tr>'
        f'<tr class="more"><td colspan="{_COLUMNS}">{_details(row)}</td></tr></tbody>'
    )


def _breakable(ref: str) -> str:
    """The escaped ref with a line-break opportunity after each `/` (it wraps there, not mid-word)."""
    out = _e(ref)
    return out.replace("/", "/<wbr>")


def _num(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def _details(row: ReportRow) -> str:
    """The expanded row: why (when not scored), what the commit changed, what it printed."""
    sections = [*_status_notes(row), *_commit_sections(row)]
    if row.findings:
        sections.append("<h3>Findings</h3><ul>" + "".join(_finding(f) for f in row.findings) + "</ul>")
    if row.external_metrics or row.external_error:
        sections.append(_external(row))
    for name, text in (("stdout", row.stdout_tail), ("stderr", row.stderr_tail)):
        if text:
            sections.append(f"<h3>{name} (last lines)</h3><pre>{_e(text)}</pre>")
    if not sections:
        sections.append('<p class="muted">Nothing more was recorded for this commit.</p>')
    return f"<details><summary>{_e(_summary(row))}</summary>{''.join(sections)}</details>"


def _status_notes(row: ReportRow) -> list[str]:
    notes = []
    if row.finished_at:
        notes.append(
            f'<p class="muted">Measured in {row.duration_s:.1f} s, recorded {_e(_time(row.finished_at))}.</p>'
        )
    if row.reason and row.group != "ranked":
        notes.append(f'<p class="reason"><strong>Why:</strong> {_e(row.reason)}</p>')
    if row.not_isolated:
        notes.append(
            f'<p class="reason s-rejected"><strong>Not isolated:</strong> {_e(row.not_isolated)}</p>'
        )
    return notes


def _commit_sections(row: ReportRow) -> list[str]:
    facts = row.facts
    if facts is None:
        return []
    sections = [f"<h3>Commit message</h3><pre>{_e(facts.message)}</pre>"] if facts.message else []
    if not row.is_baseline:
        sections.append(_files(row))
    return sections


def _summary(row: ReportRow) -> str:
    parts = []
    facts = row.facts
    if facts is not None and facts.message:
        subject = facts.message.splitlines()[0]
        parts.append(subject if len(subject) <= 90 else subject[:89] + "…")
    if facts is not None and not row.is_baseline and (facts.files or facts.more_files):
        count = len(facts.files) + facts.more_files
        added = sum(f.added or 0 for f in facts.files)
        deleted = sum(f.deleted or 0 for f in facts.files)
        parts.append(f"{count} file{'' if count == 1 else 's'} +{added} −{deleted}")
    if row.findings:
        parts.append(f"{len(row.findings)} finding{'' if len(row.findings) == 1 else 's'}")
    if row.stdout_tail or row.stderr_tail:
        parts.append("output")
    return " · ".join(parts) or "details"


def _files(row: ReportRow) -> str:
    facts = row.facts
    assert facts is not None
    if facts.error:
        return f'<h3>Files changed</h3><p class="muted">{_e(facts.error)}</p>'
    if not facts.files:
        return '<h3>Files changed</h3><p class="muted">No file differs from the baseline.</p>'
    items = []
    for f in facts.files:
        counts = (
            "binary"
            if f.added is None or f.deleted is None
            else f'<span class="add">+{f.added}</span> <span class="del">−{f.deleted}</span>'
        )
        items.append(f"<li><code>{_e(f.path)}</code> {counts}</li>")
    more = f'<li class="muted">… and {facts.more_files} more</li>' if facts.more_files else ""
    return "<h3>Files changed against the baseline</h3><ul>" + "".join(items) + more + "</ul>"


def _finding(f: ReportFinding) -> str:
    kind = "rejects" if f.severity == "reject" else "flag"
    title = f" {_e(f.title)}" if f.title else ""
    return (
        f'<li><a href="{_e(f.doc_url)}">{_e(f.code)}</a>{title} ({kind}): <code>{_e(f.path)}</code> — '
        f"{_e(f.detail)}</li>"
    )


def _external(row: ReportRow) -> str:
    metrics = ", ".join(f"{_e(k)} = {v:.6g}" for k, v in row.external_metrics)
    error = f'<p class="s-failed">{_e(row.external_error)}</p>' if row.external_error else ""
    return f"<h3>External metrics (observational)</h3><p>{metrics or '—'}</p>{error}"


def _trend_section(points: Sequence[TrendPoint], current: str, evaluator_id: str, metric: str) -> str:
    same_metric = [p for p in points if p.metric == metric]
    title = f'<section aria-labelledby="h-trend-{_e(metric)}"><h2 id="h-trend-{_e(metric)}">Trend: best {_e(metric)} per campaign</h2>'
    if len(same_metric) < 2:
        return title + (
            '<p class="muted">This is the only campaign with this metric in the repository so far; the trend '
            "shows once there are more.</p></section>"
        )
    charts = trend_chart(same_metric, current, WIDE) + trend_chart(same_metric, current, NARROW)
    rows = []
    for p in reversed(same_metric):
        comparable = (
            "" if not evaluator_id else ("yes" if p.evaluator_id == evaluator_id else "no (other version)")
        )
        mark = " (this one)" if p.campaign_id == current else ""
        version = f"v{p.version}" if p.version else "unregistered"
        rows.append(
            f'<tr><th scope="row">{_e(p.campaign_id)}{mark}</th><td>{_e(p.when[:16].replace("T", " "))}</td>'
            f'<td>{_e(version)} <code>{_e(p.evaluator_id[:12])}</code></td><td class="num">'
            f"{_e(fmt_score(p.score))}</td>"
            + (f"<td>{_e(comparable)}</td>" if evaluator_id else "")
            + "</tr>"
        )
    extra = '<th scope="col">comparable</th>' if evaluator_id else ""
    table = (
        f'<details><summary>{len(same_metric)} campaigns as a table</summary><div class="table-wrap"><table>'
        '<thead><tr><th scope="col">campaign</th><th scope="col">when (UTC)</th><th scope="col">evaluator</th>'
        f'<th scope="col">best</th>{extra}</tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table></div></details>"
    )
    caption = (
        "<figcaption>One line per evaluator version; a dashed line marks where the evaluator changed, and "
        "scores are never joined across it.</figcaption>"
    )
    return title + f"<figure>{charts}{caption}</figure>" + table + "</section>"


def _notes(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return "<h2>Notes</h2><ul>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>"


def _time(text: str) -> str:
    return text[:19].replace("T", " ") + " UTC" if text else "not recorded"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s"
