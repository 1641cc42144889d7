"""Deliveries and the job outbox: the webhook records a delivery and its job in one transaction, workers
claim, renew, finish and (after a crash) reclaim jobs.

Deliveries are unique by `X-GitHub-Delivery`; every job is a row written in the same transaction as its
delivery, before the webhook answers, so a crash can lose no accepted work.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError

from github_app.store.database import StoreBase
from github_app.store.models import JOB_PENDING, JOB_RUNNING, DeliveryRow, JobRow

__all__ = ["Job", "JobQueue", "NewJob", "worker_identity"]


@dataclass(frozen=True)
class Job:
    id: int
    delivery_id: str
    event: str
    action: str
    repo: str
    pr_number: int
    head_sha: str
    payload: Mapping[str, Any]
    attempts: int


@dataclass(frozen=True)
class NewJob:
    """What the webhook records for one delivery that has work (see `Store.record_delivery`)."""

    repo: str = ""
    pr_number: int = 0
    head_sha: str = ""


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[19].decode()
    except (OSError, IndexError):
        return ""


def worker_identity() -> str:
    """`host:pid:start` of this process: a restarted worker knows which claims died with their process.

    The start time makes a recycled pid look like the other process it is.
    """
    return f"{socket.gethostname()}:{os.getpid()}:{_start_time(os.getpid())}"


def _owner_alive(owner: str, beat_at: float, lease_s: float) -> bool:
    """This machine's worker: is its process alive? Another machine's: has it renewed its claim lately?"""
    host, _, rest = owner.partition(":")
    pid, _, start = rest.partition(":")
    if host != socket.gethostname():
        return time.time() - beat_at < lease_s  # its worker renews `updated_at` while it runs (touch)
    return pid.isdigit() and bool(start) and _start_time(int(pid)) == start


class JobQueue(StoreBase):
    """The webhook side (`record_delivery`) and the worker side (claim … reclaim) of the job table."""

    def record_delivery(
        self, delivery_id: str, event: str, action: str, body: bytes, job: NewJob | None
    ) -> int | None:
        """Record a delivery (and its job) in one transaction; None when this delivery id was seen before.

        Returns the job id (0 when the delivery has no work). SQLAlchemy Core, not the ORM: this is the
        webhook's hot path.
        """
        now = time.time()
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(DeliveryRow).values(
                        delivery_id=delivery_id, event=event, action=action, received_at=now
                    )
                )
                if job is None:
                    return 0
                inserted = conn.execute(
                    insert(JobRow).values(
                        delivery_id=delivery_id,
                        event=event,
                        action=action,
                        repo=job.repo,
                        pr_number=job.pr_number,
                        head_sha=job.head_sha,
                        payload=body.decode("utf-8"),
                        status=JOB_PENDING,
                        attempts=0,
                        owner="",
                        error="",
                        updated_at=now,
                    )
                )
                key = inserted.inserted_primary_key
                return int(key[0]) if key is not None else 0
        except IntegrityError:
            return None

    def claim(self, job_id: int) -> Job | None:
        """Mark a pending job running for this process; None when it is not pending (done, or claimed)."""
        with self._session() as session:
            claimed = session.execute(
                update(JobRow)
                .where(JobRow.id == job_id, JobRow.status == JOB_PENDING)
                .values(
                    status=JOB_RUNNING,
                    owner=worker_identity(),
                    attempts=JobRow.attempts + 1,
                    updated_at=time.time(),
                )
            )
            if cast("CursorResult[Any]", claimed).rowcount != 1:
                return None
            row = session.get_one(JobRow, job_id)
            return Job(
                row.id,
                row.delivery_id,
                row.event,
                row.action,
                row.repo,
                row.pr_number,
                row.head_sha,
                json.loads(row.payload),
                row.attempts,
            )

    def finish(self, job_id: int, status: str, error: str = "") -> None:
        with self._session() as session:
            session.execute(
                update(JobRow)
                .where(JobRow.id == job_id)
                .values(status=status, error=error[:4000], updated_at=time.time())
            )

    def touch(self, job_id: int) -> None:
        """Renew this process's claim on a running job (workers on other machines judge it by this)."""
        with self._session() as session:
            session.execute(
                update(JobRow)
                .where(JobRow.id == job_id, JobRow.status == JOB_RUNNING, JobRow.owner == worker_identity())
                .values(updated_at=time.time())
            )

    def reclaim(self) -> list[int]:
        """Claims whose worker died (kill -9, or a machine whose claims stopped being renewed) go back to
        pending; returns their ids."""
        with self._session() as session:
            dead = [
                row
                for row in session.scalars(select(JobRow).where(JobRow.status == JOB_RUNNING))
                if not _owner_alive(row.owner, row.updated_at, self.lease_s)
            ]
            moved = []
            for row in dead:  # only while it is still the claim judged dead: never over a late `finish`
                done = session.execute(
                    update(JobRow)
                    .where(JobRow.id == row.id, JobRow.status == JOB_RUNNING, JobRow.owner == row.owner)
                    .where(JobRow.updated_at == row.updated_at)
                    .values(status=JOB_PENDING)
                    .execution_options(synchronize_session=False)
                )
                if cast("CursorResult[Any]", done).rowcount == 1:
                    moved.append(row.id)
            return moved

    def recover(self) -> list[int]:
        """`reclaim`, then every pending job id, oldest first (what a starting worker enqueues)."""
        self.reclaim()
        with self._session() as session:
            return list(
                session.scalars(select(JobRow.id).where(JobRow.status == JOB_PENDING).order_by(JobRow.id))
            )

    def job_counts(self) -> dict[str, int]:
        with self._session() as session:
            rows = session.execute(select(JobRow.status, func.count()).group_by(JobRow.status))
            return {str(status): int(count) for status, count in rows}

    def newer_head(self, repo: str, pr_number: int, job_id: int, head_sha: str) -> str | None:
        """The head sha of a later pull-request delivery for the same PR, when it moved on."""
        with self._session() as session:
            row = session.scalars(
                select(JobRow)
                .where(
                    JobRow.repo == repo,
                    JobRow.pr_number == pr_number,
                    JobRow.event == "pull_request",
                    JobRow.id > job_id,
                    JobRow.head_sha != head_sha,
                    JobRow.head_sha != "",
                )
                .order_by(JobRow.id.desc())
                .limit(1)
            ).first()
            return row.head_sha if row is not None else None
