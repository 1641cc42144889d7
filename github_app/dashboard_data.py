"""What the dashboard shows, built from the app's store: repositories, pull-request checks and campaigns.

Pure reads, no HTML: the pages (`dashboard_html`) and the JSON API (`dashboard`) render the same views, so
what a browser shows and what a script reads cannot drift apart. A campaign's scores come from the
campaign's JSON (SPEC §5.3 schema 1) as the store recorded it, else the `scoreboard.json` beside its report.html;
a missing or unreadable one leaves the campaign listed without scores rather than failing the page.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from github_app.store import Campaign, CheckRun, Store

LIST_LIMIT = 200


@dataclass(frozen=True)
class PullView:
    """The latest check of one pull request."""

    repo: str
    number: int
    head_sha: str
    status: str
    conclusion: str
    title: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class CampaignView:
    """One campaign with the scores of its scoreboard (None where it has none yet)."""

    campaign_id: str
    repo: str
    pr_number: int
    status: str
    created_at: float
    metric: str = ""
    direction: str = "maximize"
    baseline_score: float | None = None
    winner_ref: str | None = None
    winner_score: float | None = None
    best_score: float | None = None
    candidates: int = 0
    rejected: int = 0
    failed: int = 0
    has_report: bool = False
    spent_usd: float | None = None  # what a prompt optimization spent on the judge and the teacher

    @property
    def delta(self) -> float | None:
        if self.winner_score is None or self.baseline_score is None:
            return None
        return self.winner_score - self.baseline_score

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["delta"] = self.delta
        data["report_url"] = f"/campaigns/{self.campaign_id}" if self.has_report else None
        return data


@dataclass(frozen=True)
class RepoView:
    repo: str
    pull_requests: int
    campaigns: int
    latest_conclusion: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Overview:
    repos: list[RepoView] = field(default_factory=list)
    pulls: list[PullView] = field(default_factory=list)
    campaigns: list[CampaignView] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "repositories": [r.to_json() for r in self.repos],
            "pull_requests": [p.to_json() for p in self.pulls],
            "campaigns": [c.to_json() for c in self.campaigns],
        }


def report_file(campaign: Campaign, data_dir: Path | None) -> Path | None:
    """The campaign's report.html on disk, or None when it was never written."""
    if not campaign.report_path:
        return None
    path = Path(campaign.report_path)
    if not path.is_absolute() and data_dir is not None:
        path = data_dir / path
    return path if path.is_file() else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _scoreboard(campaign: Campaign, report: Path | None) -> dict[str, Any]:
    """The campaign's schema-1 JSON: as recorded in the store, else the scoreboard.json beside its report."""
    try:
        if campaign.result:
            data = json.loads(campaign.result)
        elif report is not None:
            data = json.loads((report.parent / "scoreboard.json").read_text("utf-8"))
        else:
            return {}
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("schema") == 1 else {}


def _best(candidates: list[dict[str, Any]], direction: str) -> float | None:
    scores = [
        s for c in candidates if c.get("status") == "scored" and (s := _number(c.get("score"))) is not None
    ]
    if not scores:
        return None
    return min(scores) if direction == "minimize" else max(scores)


def _part(board: dict[str, Any], key: str) -> dict[str, Any]:
    value = board.get(key)
    return value if isinstance(value, dict) else {}


def campaign_view(campaign: Campaign, data_dir: Path | None) -> CampaignView:
    report = report_file(campaign, data_dir)
    board = _scoreboard(campaign, report)
    metric, baseline, winner = _part(board, "metric"), _part(board, "baseline"), _part(board, "winner")
    raw = board.get("candidates")
    candidates = [c for c in raw if isinstance(c, dict)] if isinstance(raw, list) else []
    direction = "minimize" if metric.get("direction") == "minimize" else "maximize"
    return CampaignView(
        campaign_id=campaign.campaign_id,
        repo=campaign.repo,
        pr_number=campaign.pr_number,
        status=campaign.status,
        created_at=campaign.created_at,
        metric=str(metric.get("name") or ""),
        direction=direction,
        baseline_score=_number(baseline.get("score")),
        winner_ref=str(winner.get("ref")) if winner else None,
        winner_score=_number(winner.get("score")) if winner else None,
        best_score=_best(candidates, direction),
        candidates=len(candidates),
        rejected=sum(c.get("status") == "rejected" for c in candidates),
        failed=sum(c.get("status") == "failed" for c in candidates),
        has_report=report is not None,
        spent_usd=_number(board.get("spent_usd")),
    )


def _title(run: CheckRun) -> str:
    try:
        data = json.loads(run.result) if run.result else {}
    except ValueError:
        return ""
    return str(data.get("title", "")) if isinstance(data, dict) else ""


def _pulls(runs: list[CheckRun]) -> list[PullView]:
    """The newest check of each PR (the runs come newest first)."""
    seen: dict[tuple[str, int], PullView] = {}
    for run in runs:
        key = (run.repo, run.pr_number)
        if key not in seen:
            seen[key] = PullView(
                run.repo, run.pr_number, run.head_sha, run.status, run.conclusion, _title(run)
            )
    return list(seen.values())


def _repos(pulls: list[PullView], campaigns: list[CampaignView]) -> list[RepoView]:
    names = sorted({p.repo for p in pulls} | {c.repo for c in campaigns}, key=str.lower)
    views = []
    for name in names:
        mine = [p for p in pulls if p.repo == name]
        latest = mine[0].conclusion or mine[0].status if mine else ""
        views.append(RepoView(name, len(mine), sum(c.repo == name for c in campaigns), latest))
    return views


def overview(store: Store, data_dir: Path | None, repo: str | None = None, pr: int | None = None) -> Overview:
    """Everything `/` shows, optionally narrowed to one repository and one of its PRs."""
    pulls = _pulls(store.recent_check_runs(LIST_LIMIT))
    campaigns = [campaign_view(c, data_dir) for c in store.campaigns(limit=LIST_LIMIT)]
    if repo:
        pulls = [p for p in pulls if p.repo.lower() == repo.lower()]
        campaigns = [c for c in campaigns if c.repo.lower() == repo.lower()]
    if pr is not None:
        pulls = [p for p in pulls if p.number == pr]
        campaigns = [c for c in campaigns if c.pr_number == pr]
    return Overview(_repos(pulls, campaigns), pulls, campaigns)
