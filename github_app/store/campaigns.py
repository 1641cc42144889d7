"""Campaigns run on PRs (`/proctor campaign`) and the commits the app pushed to their delivery branches.

The dashboard lists the campaigns and serves each one's `report_path` at /campaigns/{id};
github_app/delivery.py asks `pushed_by_app` before it moves a delivery branch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from github_app.store.database import StoreBase
from github_app.store.models import CampaignRow, DeliveryPushRow

__all__ = ["Campaign", "CampaignRecords"]


@dataclass(frozen=True)
class Campaign:
    campaign_id: str
    repo: str
    pr_number: int
    job_id: int
    head_sha: str
    check_run_id: int | None
    status: str
    report_path: str
    result: str
    winner_commit: str
    created_at: float


def _campaign(row: CampaignRow) -> Campaign:
    return Campaign(
        row.campaign_id,
        row.repo,
        row.pr_number,
        row.job_id,
        row.head_sha,
        row.check_run_id,
        row.status,
        row.report_path,
        row.result,
        row.winner_commit,
        row.created_at,
    )


class CampaignRecords(StoreBase):
    """Reads and writes of the campaign and delivery-push tables."""

    def save_campaign(self, campaign_id: str, **values: Any) -> None:
        """Create the campaign's row (repo, pr_number, job_id, head_sha required then) or update fields."""
        with self._session() as session:
            row = session.get(CampaignRow, campaign_id)
            if row is None:
                row = CampaignRow(campaign_id=campaign_id, created_at=time.time())
                session.add(row)
            for name, value in values.items():
                setattr(row, name, value)

    def campaign(self, campaign_id: str) -> Campaign | None:
        with self._session() as session:
            row = session.get(CampaignRow, campaign_id)
            return _campaign(row) if row is not None else None

    def campaign_of_job(self, job_id: int) -> Campaign | None:
        with self._session() as session:
            row = session.scalars(select(CampaignRow).where(CampaignRow.job_id == job_id)).first()
            return _campaign(row) if row is not None else None

    def campaigns(
        self, repo: str | None = None, pr_number: int | None = None, limit: int = 100
    ) -> list[Campaign]:
        """Newest first; all of them, one repository's, or one PR's."""
        query = select(CampaignRow)
        if repo is not None:
            query = query.where(CampaignRow.repo == repo)
        if pr_number is not None:
            query = query.where(CampaignRow.pr_number == pr_number)
        with self._session() as session:
            rows = session.scalars(
                query.order_by(CampaignRow.created_at.desc(), CampaignRow.job_id.desc()).limit(limit)
            )
            return [_campaign(row) for row in rows]

    # -- delivery branches (github_app/delivery.py)

    def record_delivery_push(self, repo: str, branch: str, sha: str) -> None:
        with self._session() as session:
            session.merge(DeliveryPushRow(repo=repo, branch=branch, sha=sha, pushed_at=time.time()))

    def pushed_by_app(self, repo: str, branch: str, sha: str) -> bool:
        with self._session() as session:
            return session.get(DeliveryPushRow, (repo, branch, sha)) is not None
