"""The dashboard's pages as plain HTML with an inline SVG chart: no template engine, no script, no fetch.

Every value that came from a repository, a PR or a candidate (repo names, check titles, refs) goes through
`html.escape` once, where it is written. The pages carry no JavaScript at all, so their Content-Security-Policy
(`CSP`, sent as a header by `dashboard`) forbids every script; the chart is drawn here and shows with
JavaScript off, like the campaign report's.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote, urlencode

from core.campaign.report.chart import nice_ticks, shorten_middle, tick_text
from core.campaign.scoreboard import fmt_score
from github_app.dashboard_data import CampaignView, Overview, PullView, RepoView

_e = html.escape
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
_CSS = """
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;--soft:#f6f8fa;
--win:#1a7f37;--base:#0969da;--rej:#cf222e;--grid:#eaeef2;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--border:#3d444d;
--soft:#151b23;--win:#3fb950;--base:#4493f8;--rej:#f85149;--grid:#262c36;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1180px;margin:0 auto;padding:1rem}
h1{font-size:1.35rem;margin:.4rem 0}h2{font-size:1.1rem;margin:1.6rem 0 .5rem}
a{color:var(--link)}code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}
.muted{color:var(--muted)}
.table-wrap{overflow-x:auto;max-width:100%;border:1px solid var(--border);border-radius:6px}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.3rem .6rem;border-bottom:1px solid var(--border);vertical-align:top}
th{background:var(--soft);white-space:nowrap}td.num{font-variant-numeric:tabular-nums;white-space:nowrap}
.c-success{color:var(--win)}.c-failure{color:var(--rej)}
figure{margin:0}svg{display:block;max-width:100%;height:auto}.narrow{display:none}
@media (max-width:640px){.wide{display:none}.narrow{display:block}main{padding:.75rem}}svg text{font:11px system-ui,sans-serif;fill:var(--muted)}
svg .label{fill:var(--fg)}.grid{stroke:var(--grid)}.link{stroke:var(--muted);stroke-width:1.5}
.m-base{fill:var(--base)}.m-win{fill:var(--win)}.m-best{fill:var(--muted)}
form.login{display:flex;gap:.5rem;flex-wrap:wrap;margin:1rem 0}
input{font:inherit;padding:.3rem .5rem}button{font:inherit;padding:.3rem .8rem}
.error{color:var(--rej)}
"""
_ROW_H, _TOP = 24, 26
_CHART_ROWS = 40


def page(title: str, body: Sequence[str]) -> str:
    """A whole page; the `data:` icon keeps the browser from asking for /favicon.ico."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body><main>"
        + "\n".join(body)
        + "</main></body></html>\n"
    )


def _table(headers: Sequence[str], rows: Sequence[str], empty: str) -> str:
    if not rows:
        return f'<p class="muted">{_e(empty)}</p>'
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _when(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M UTC") if stamp else "—"


def _repo_link(repo: str, pr: int | None = None) -> str:
    query = {"repo": repo} | ({"pr": str(pr)} if pr else {})
    text = f"{repo}#{pr}" if pr else repo
    return f'<a href="/?{_e(urlencode(query))}">{_e(text)}</a>'


def _repo_row(r: RepoView) -> str:
    return (
        f"<tr><td>{_repo_link(r.repo)}</td><td class=num>{r.pull_requests}</td>"
        f"<td class=num>{r.campaigns}</td><td>{_e(r.latest_conclusion or '—')}</td></tr>"
    )


def _pull_row(p: PullView) -> str:
    outcome = p.conclusion or p.status
    return (
        f"<tr><td>{_repo_link(p.repo, p.number)}</td><td><code>{_e(p.head_sha[:12])}</code></td>"
        f'<td class="c-{_e(outcome)}">{_e(outcome)}</td><td>{_e(p.title or "—")}</td></tr>'
    )


def _delta(c: CampaignView) -> str:
    return "—" if c.delta is None else f"{c.delta:+.4f}"


def _campaign_row(c: CampaignView) -> str:
    name = f"<code>{_e(c.campaign_id)}</code>"
    link = f'<a href="/campaigns/{quote(c.campaign_id, safe="")}">{name}</a>' if c.has_report else name
    pr = _repo_link(c.repo, c.pr_number) if c.pr_number else _repo_link(c.repo)
    winner = f"<code>{_e(c.winner_ref)}</code> " if c.winner_ref else "none "
    return (
        f"<tr><td>{link}</td><td>{pr}</td><td>{_e(c.status)}</td><td>{_e(c.metric or '—')}</td>"
        f"<td class=num>{fmt_score(c.baseline_score)}</td><td>{winner}{fmt_score(c.winner_score)}</td>"
        f"<td class=num>{_delta(c)}</td><td class=num>{c.candidates}</td><td class=num>{c.rejected}</td>"
        f"<td class=num>{_e(_when(c.created_at))}</td></tr>"
    )


def _chart_rows(campaigns: Sequence[CampaignView]) -> list[CampaignView]:
    return [c for c in campaigns if c.baseline_score is not None or c.best_score is not None][:_CHART_ROWS]


@dataclass(frozen=True)
class ChartLayout:
    """One variant of the chart; CSS shows the wide one on screens over 640 px, the narrow one below."""

    name: str
    width: int
    label_w: int
    label_chars: int


WIDE = ChartLayout("wide", 760, 240, 36)
NARROW = ChartLayout("narrow", 360, 120, 18)


def score_chart(metric: str, campaigns: Sequence[CampaignView], layout: ChartLayout = WIDE) -> str:
    """One row per campaign of `metric`: the baseline (square) and the best candidate (circle, green when
    it is the winner) on one shared axis, joined by a line."""
    values = [v for c in campaigns for v in (c.baseline_score, c.best_score) if v is not None]
    ticks = nice_ticks(min(values), max(values), 5 if layout is WIDE else 3)
    lo, hi, step = ticks[0], ticks[-1], ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    x0, x1 = layout.label_w + 10, layout.width - 20
    height = _TOP + _ROW_H * len(campaigns) + 10

    def x(value: float) -> float:
        return x0 + (value - lo) / ((hi - lo) or 1.0) * (x1 - x0)

    parts = [
        f'<svg class="scores {layout.name}" role="img" viewBox="0 0 {layout.width} {height}" width="{layout.width}" '
        f'aria-label="{_e(metric)} of each campaign: baseline and best candidate">'
    ]
    for tick in ticks:
        parts.append(
            f'<line class="grid" x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{_TOP - 6}" y2="{height - 6}"/>'
            f'<text x="{x(tick):.1f}" y="{_TOP - 10}" text-anchor="middle">{_e(tick_text(tick, step))}</text>'
        )
    for i, c in enumerate(campaigns):
        parts.append(_chart_row(c, _TOP + _ROW_H * i + _ROW_H / 2, x, layout.label_chars))
    parts.append("</svg>")
    return "".join(parts)


def _chart_row(c: CampaignView, y: float, x: Callable[[float], float], chars: int) -> str:
    label = shorten_middle(f"{c.repo}{'#' + str(c.pr_number) if c.pr_number else ''} {c.campaign_id}", chars)
    out = [f'<g class="mark" data-campaign="{_e(c.campaign_id)}" aria-label="{_e(_mark_label(c))}">']
    out.append(f'<text class="label" x="4" y="{y + 4:.1f}">{_e(label)}</text>')
    if c.baseline_score is not None and c.best_score is not None:
        out.append(
            f'<line class="link" x1="{x(c.baseline_score):.1f}" x2="{x(c.best_score):.1f}" y1="{y}" y2="{y}"/>'
        )
    if c.baseline_score is not None:
        bx = x(c.baseline_score)
        out.append(f'<rect class="m-base" x="{bx - 5:.1f}" y="{y - 5:.1f}" width="10" height="10"/>')
    if c.best_score is not None:
        kind = "m-win" if c.winner_score is not None else "m-best"
        out.append(f'<circle class="{kind}" cx="{x(c.best_score):.1f}" cy="{y}" r="6"/>')
    out.append("</g>")
    return "".join(out)


def _mark_label(c: CampaignView) -> str:
    best = "winner" if c.winner_score is not None else "best candidate (no winner)"
    return f"{c.campaign_id}: baseline {fmt_score(c.baseline_score)}, {best} {fmt_score(c.best_score)}"


def _charts(campaigns: Sequence[CampaignView]) -> list[str]:
    rows = _chart_rows(campaigns)
    if not rows:
        return ['<p class="muted">No campaign has scores yet.</p>']
    out = []
    for metric in sorted({c.metric for c in rows}):
        mine = [c for c in rows if c.metric == metric]
        direction = "higher is better" if mine[0].direction == "maximize" else "lower is better"
        out.append(
            f"<figure>{score_chart(metric, mine)}{score_chart(metric, mine, NARROW)}<figcaption class=muted><code>{_e(metric or 'score')}</code> "
            f"({direction}): ■ baseline, ● best candidate, green when it won.</figcaption></figure>"
        )
    return out


def render_overview(view: Overview, repo: str | None, pr: int | None) -> str:
    scope = _e(f"{repo}#{pr}" if repo and pr else repo or "all repositories")
    body = [
        f"<header><h1>Proctor</h1><p class=muted>Showing {scope}."
        + (' <a href="/">Show everything</a>.' if repo else "")
        + "</p></header>",
        '<section><h2 id="h-chart">Campaign scores</h2>',
        *_charts(view.campaigns),
        '</section><section><h2 id="h-repos">Repositories</h2>',
        _table(
            ("repository", "PRs checked", "campaigns", "latest check"),
            [_repo_row(r) for r in view.repos],
            "Nothing recorded yet: install the app on a repository and open a pull request.",
        ),
        '</section><section><h2 id="h-pulls">Pull requests</h2>',
        _table(
            ("pull request", "head", "conclusion", "result"),
            [_pull_row(p) for p in view.pulls],
            "No pull request checked yet.",
        ),
        '</section><section><h2 id="h-campaigns">Campaigns</h2>',
        _table(
            (
                "campaign",
                "where",
                "status",
                "metric",
                "baseline",
                "winner",
                "Δ",
                "candidates",
                "rejected",
                "started",
            ),
            [_campaign_row(c) for c in view.campaigns],
            "No campaign yet: comment /proctor campaign on a pull request.",
        ),
        "</section>",
    ]
    return page("Proctor dashboard", body)


def render_login(next_path: str, error: str = "") -> str:
    """The token form; `next_path` is where a correct token leads (always a local path)."""
    body = [
        "<h1>Proctor</h1>",
        "<p>This dashboard is protected: enter the token set in <code>PROCTOR_DASHBOARD_TOKEN</code>, "
        "or send it as <code>Authorization: Bearer …</code>.</p>",
        f'<p class="error">{_e(error)}</p>' if error else "",
        '<form class="login" method="post" action="/login">'
        f'<input type="hidden" name="next" value="{_e(next_path)}">'
        '<input type="password" name="token" autocomplete="current-password" aria-label="token" required autofocus>'
        '<button type="submit">Sign in</button></form>',
    ]
    return page("Proctor: sign in", body)


def render_message(title: str, message: str) -> str:
    return page(
        f"Proctor: {title}",
        [f"<h1>{_e(title)}</h1>", f"<p>{_e(message)}</p>", '<p><a href="/">Dashboard</a></p>'],
    )
