"""Campaign results as text (a rich table), JSON (SPEC §5.3 schema 1) and one self-contained HTML file.

The HTML report (model in model.py, charts in chart.py, page in html.py) has no external resources, so it can be mailed, attached to a CI run or served by the dashboard as is.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from core.campaign.model import CampaignResult
from core.campaign.scoreboard import (
    display_rows,
    fmt_delta,
    fmt_score,
    no_winner_reason,
    rejected_report,
    short,
)

if TYPE_CHECKING:
    from core.campaign.report.model import ReportModel

_STATUS_STYLE = {"scored": "green", "rejected": "bold red", "failed": "yellow"}


def render_json(result: CampaignResult) -> str:
    return json.dumps(result.to_json(), indent=2, allow_nan=False)


def render_text(result: CampaignResult, *, width: int = 120, color: bool = False) -> str:
    """Scoreboard table, winner line and the rejected-candidate report."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=color, no_color=not color, highlight=False)
    ev = result.evaluator
    version = f"v{ev.version}" if ev.version else "unregistered"
    if result.not_isolated:
        console.print(Text.assemble(("NOT ISOLATED", "bold red"), f": {'; '.join(result.not_isolated)}"))
    console.print(
        f"Campaign {result.campaign_id}: {result.metric_name} ({result.direction}), evaluator {version} "
        f"{ev.evaluator_id[:12]} ({ev.provenance}), sandbox {result.sandbox}"
    )
    if result.interpreter:
        console.print(f"Python: {result.interpreter}", markup=False)
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


def build_report(result: CampaignResult) -> ReportModel:
    """The report model of `result`, with what git and the repository's other campaigns add to it."""
    from core import __version__
    from core.campaign.report.facts import commit_facts, load_trend
    from core.campaign.report.model import build_model, trend_point

    commits = [r.commit for r in (result.baseline, *result.candidates) if r.commit]
    facts = commit_facts(result.repo, result.baseline.commit, commits)
    current = trend_point(result.to_json(), result.finished_at or result.started_at)
    trend = load_trend(result.repo, [current] if current is not None else [])
    return build_model(result, facts=facts, trend=trend, proctor_version=__version__)


def render_html(result: CampaignResult) -> str:
    """The self-contained HTML report (core/campaign/report/html.py lays it out)."""
    from core.campaign.report.html import render_report

    return render_report(build_report(result))
