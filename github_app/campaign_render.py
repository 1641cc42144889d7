"""A PR campaign as GitHub text: the check run's title and summary, the comment's section, the delivery PR.

Numbers and statuses are formatted by `core.campaign.scoreboard` (the same as `proctor campaign`'s text and
HTML reports); everything a candidate chose (ref names, paths, finding details, reasons) goes through
`hygiene` first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.campaign.scoreboard import display_rows, fmt_delta, fmt_score, no_winner_reason, short
from github_app import hygiene, text

if TYPE_CHECKING:
    from core.campaign import CampaignResult, ProgressEvent
    from core.campaign.model import ScoredRow

_BOARD_HEAD = (
    "| rank | candidate | commit | status | score | vs PR head | findings | note |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- |"
)


def _metric(result: CampaignResult) -> str:
    return hygiene.plain(result.metric_name or "score", 60)


def progress_summary(event: ProgressEvent) -> str:
    lines = [
        f"{event.done} of {event.total} candidates measured ({event.running} running): "
        f"{event.scored} scored, {event.rejected} rejected, {event.failed} failed."
    ]
    record = event.record
    if record is not None and event.kind == "finished":
        lines.append(
            f"Last finished: {hygiene.inline(record.ref, 200)} `{short(record.commit)}` {record.status}"
            f" {fmt_score(record.score)}."
        )
    return "\n\n".join(lines)


def no_winner(result: CampaignResult) -> str:
    if result.winner is not None and result.baseline.status != "scored":
        return f"the PR head was not scored ({result.baseline.status}), so no candidate can beat it"
    return no_winner_reason(result)


def title(result: CampaignResult) -> str:
    winner = result.winner
    counts = f"{len(result.rows)} measured, {result.rejected_candidates} rejected"
    if winner is None or result.baseline.status != "scored":
        return hygiene.plain(f"no candidate beats the PR head ({counts})")
    row = next(r for r in result.rows if r.record.index == winner.index)
    return hygiene.plain(
        f"winner {winner.ref}: {_metric(result)} {fmt_score(winner.score)} "
        f"({fmt_delta(row.delta, row.stderr)} vs PR head; {counts})"
    )


def conclusion(result: CampaignResult) -> str:
    return "success" if result.winner is not None and result.baseline.status == "scored" else "neutral"


def scoreboard(result: CampaignResult) -> str:
    base = result.baseline
    lines = [
        _BOARD_HEAD,
        f"| | PR head (baseline) | `{short(base.commit)}` | {base.status} | {fmt_score(base.score)} | | | "
        f"{hygiene.inline(base.reason, 200)} |",
    ]
    for row in display_rows(result):
        name = ("🏆 " if row.is_winner else "") + hygiene.inline(row.ref, 200)
        lines.append(
            f"| {row.rank} | {name} | `{row.commit}` | {row.status} | {row.score} | {row.delta} | "
            f"{hygiene.inline(row.findings, 200)} | {hygiene.inline(row.note, 300)} |"
        )
    return "\n".join(lines)


def rejected(result: CampaignResult) -> str:
    """The rejected-candidate report: every rejected candidate with each finding's code, path and detail."""
    lines: list[str] = []
    for row in result.rows:
        record = row.record
        if record.status != "rejected":
            continue
        lines.append(f"- {hygiene.inline(record.ref, 200)} `{short(record.commit)}`")
        for f in record.findings:
            flag = " (flag)" if f.severity != "reject" else ""
            lines.append(f"  - {f.code}{flag} {hygiene.inline(f.path, 300)}: {hygiene.inline(f.detail, 500)}")
    if not lines:
        return ""
    return f"#### Rejected candidates ({result.rejected_candidates})\n\n" + "\n".join(lines)


def evaluator_line(result: CampaignResult) -> str:
    ev = result.evaluator
    version = f"version {ev.version} ({ev.provenance})" if ev.version else "(not registered)"
    return (
        f"Metric: {_metric(result)} ({result.direction}). Evaluator `{ev.evaluator_id[:12]}` {version}. "
        f"Sandbox: {hygiene.inline(result.sandbox)}. Campaign `{result.campaign_id}`."
    )


def summary(result: CampaignResult, delivery_line: str, link: str) -> str:
    parts = []
    if result.not_isolated:
        parts.append("**not isolated**: " + hygiene.inline("; ".join(result.not_isolated), 500))
    parts += [scoreboard(result), rejected(result), evaluator_line(result), delivery_line]
    parts.append(
        f"[The campaign report (chart, findings, diffs)]({link})"
        if link
        else "The campaign report (report.html) is in the Proctor app's data directory."
    )
    return "\n\n".join(p for p in parts if p)


def section(check_title: str, body: str) -> str:
    return f"### {text.CAMPAIGN_CHECK_NAME}\n\n**{hygiene.inline(check_title, 300)}**\n\n{body}"


def delivery_title(result: CampaignResult, row: ScoredRow, number: int) -> str:
    """The delivery PR's title; `#<number>` links the PR on purpose, the candidate's ref is neutralised."""
    gain = fmt_delta(row.delta, row.stderr).lstrip("+")
    title = text.DELIVERY_TITLE.format(
        metric=_metric(result),
        score=fmt_score(row.record.score),
        gain=gain,
        number=number,
        ref=hygiene.plain(row.record.ref, 120),
    )
    return hygiene.cut(title, hygiene.TITLE_LIMIT)


def delivery_body(result: CampaignResult, row: ScoredRow, number: int, link: str) -> str:
    base, record, ev = result.baseline, row.record, result.evaluator
    version = f"version {ev.version} ({ev.provenance})" if ev.version else "(not registered)"
    lines = [
        f"Proctor's campaign `{result.campaign_id}` on #{number} found a candidate that beats the pull "
        "request's head under the protected evaluator. Merging this brings it into that branch.",
        "",
        "| | commit | score |",
        "| --- | --- | --- |",
        f"| PR head (baseline) | `{short(base.commit)}` | {fmt_score(base.score)} |",
        f"| winner {hygiene.inline(record.ref, 200)} | `{short(record.commit)}` | {fmt_score(record.score)} "
        f"({fmt_delta(row.delta, row.stderr)}) |",
        "",
        f"Metric: {_metric(result)} ({result.direction}). Evaluator `{ev.evaluator_id}` {version}.",
        f"Candidates: {len(result.rows)} measured, {result.rejected_candidates} rejected, "
        f"{result.failed_candidates} failed.",
    ]
    if link:
        lines.append(f"\n[The campaign report]({link})")
    return hygiene.cut("\n".join(lines), hygiene.COMMENT_LIMIT)
