"""The app's state through SQLAlchemy 2 (SQLite in PROCTOR_DATA_DIR by default, PostgreSQL at scale).

Deliveries are unique by `X-GitHub-Delivery`; every job is a row (the outbox) written in the same transaction
as its delivery, before the webhook answers, so a crash can lose no accepted work. Check runs are keyed by
the work they score — (repo, PR, head, base, config key) — so the same work is never done twice and a job
restarted after a kill -9 reuses its check run instead of leaving one `in_progress` forever.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import (
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import CursorResult, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

JOB_PENDING, JOB_RUNNING, JOB_DONE, JOB_FAILED = "pending", "running", "done", "failed"
log = logging.getLogger("proctor.app.store")


class _Base(DeclarativeBase):
    pass


class DeliveryRow(_Base):
    __tablename__ = "deliveries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    delivery_id: Mapped[str] = mapped_column(String(128), unique=True)
    event: Mapped[str] = mapped_column(String(128))
    action: Mapped[str] = mapped_column(String(128), default="")
    received_at: Mapped[float] = mapped_column()


class JobRow(_Base):
    __tablename__ = "jobs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    delivery_id: Mapped[str] = mapped_column(String(128), index=True)
    event: Mapped[str] = mapped_column(String(128))
    action: Mapped[str] = mapped_column(String(128), default="")
    repo: Mapped[str] = mapped_column(String(256), default="", index=True)
    pr_number: Mapped[int] = mapped_column(Integer, default=0)
    head_sha: Mapped[str] = mapped_column(String(64), default="")
    payload: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=JOB_PENDING, index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    owner: Mapped[str] = mapped_column(String(256), default="")
    error: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[float] = mapped_column(default=0.0)


class CheckRunRow(_Base):
    __tablename__ = "check_runs"
    __table_args__ = (UniqueConstraint("work_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_key: Mapped[str] = mapped_column(String(512))
    repo: Mapped[str] = mapped_column(String(256), index=True)
    pr_number: Mapped[int] = mapped_column(Integer)
    head_sha: Mapped[str] = mapped_column(String(64))
    base_sha: Mapped[str] = mapped_column(String(64))
    check_run_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    conclusion: Mapped[str] = mapped_column(String(32), default="")
    result: Mapped[str] = mapped_column(Text, default="")


class CommentRow(_Base):
    __tablename__ = "comments"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    comment_id: Mapped[int] = mapped_column(Integer)


class BaseScoreRow(_Base):
    __tablename__ = "base_scores"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    base_sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    evaluator_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    record: Mapped[str] = mapped_column(Text)


class ApprovalRow(_Base):
    __tablename__ = "approvals"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    head_sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    approved_by: Mapped[str] = mapped_column(String(256))


class AcceptedSuiteRow(_Base):
    __tablename__ = "accepted_suites"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    evaluator_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)


class CampaignRow(_Base):
    """A campaign run on a PR (`/proctor campaign`): its check run, its report, and its winner."""

    __tablename__ = "campaigns"
    campaign_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    repo: Mapped[str] = mapped_column(String(256), index=True)
    pr_number: Mapped[int] = mapped_column(Integer)
    job_id: Mapped[int] = mapped_column(Integer, unique=True)
    head_sha: Mapped[str] = mapped_column(String(64))
    check_run_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="running")  # running | completed | failed
    report_path: Mapped[str] = mapped_column(Text, default="")  # report.html, absolute
    result: Mapped[str] = mapped_column(Text, default="")  # the campaign's JSON (SPEC §5.3 schema)
    winner_commit: Mapped[str] = mapped_column(String(64), default="")
    created_at: Mapped[float] = mapped_column(default=0.0)


class CommentSectionRow(_Base):
    """One named section (`pr`, `campaign`) of the app's one comment on a PR."""

    __tablename__ = "comment_sections"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    body: Mapped[str] = mapped_column(Text)


class DeliveryPushRow(_Base):
    """A commit the app pushed (or was about to push) to a delivery branch: the branch is the app's own
    while its tip is one of these."""

    __tablename__ = "delivery_pushes"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    branch: Mapped[str] = mapped_column(String(256), primary_key=True)
    sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    pushed_at: Mapped[float] = mapped_column(default=0.0)


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


@dataclass(frozen=True)
class CheckRun:
    work_key: str
    repo: str
    pr_number: int
    head_sha: str
    check_run_id: int | None
    status: str
    conclusion: str
    result: str


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


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the webhook's writes
    cursor.execute("PRAGMA synchronous=NORMAL")  # durable across a kill -9 of the process (WAL)
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def engine_url(url: str) -> str:
    """`postgresql://…` means psycopg 3 (SQLAlchemy alone would pick psycopg2, which Proctor does not use)."""
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def make_engine(url: str) -> Engine:
    """An engine on a database migrated to the current schema (github_app/migrations)."""
    from github_app.migrations import upgrade

    url = engine_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        engine = create_engine(url, pool_pre_ping=True)
    upgrade(engine)
    _create_unmigrated(engine)
    return engine


def _create_unmigrated(engine: Engine) -> None:
    """A model added without its migration still gets its table (and a warning): the app must not stop
    over it, but tests/github_app/test_store_migrations.py fails until the revision exists."""
    from sqlalchemy import inspect

    missing = [t for t in _Base.metadata.sorted_tables if not inspect(engine).has_table(t.name)]
    if missing:
        log.warning("tables without a migration: %s", ", ".join(t.name for t in missing))
        _Base.metadata.create_all(engine, tables=missing)


class Store:
    """All reads and writes of app state; each method is one short transaction."""

    def __init__(self, url: str, *, lease_s: float = 300.0) -> None:
        """`lease_s`: how long another machine's claim stays valid without a renewal (`touch`)."""
        self.engine = make_engine(url)
        self.lease_s = lease_s
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def _session(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session

    # -- webhook side

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

    # -- worker side

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

    # -- check runs

    def check_run(self, work_key: str) -> CheckRun | None:
        with self._session() as session:
            row = session.scalars(select(CheckRunRow).where(CheckRunRow.work_key == work_key)).first()
            return _check_run(row) if row is not None else None

    def save_check_run(
        self, work_key: str, repo: str, pr_number: int, head_sha: str, base_sha: str, **values: Any
    ) -> None:
        with self._session() as session:
            row = session.scalars(select(CheckRunRow).where(CheckRunRow.work_key == work_key)).first()
            if row is None:
                row = CheckRunRow(
                    work_key=work_key, repo=repo, pr_number=pr_number, head_sha=head_sha, base_sha=base_sha
                )
                session.add(row)
            for name, value in values.items():
                setattr(row, name, value)

    def open_check_runs(self, repo: str, pr_number: int) -> list[CheckRun]:
        """Check runs of this PR that were not completed (queued or in progress, maybe from a dead job)."""
        with self._session() as session:
            rows = session.scalars(
                select(CheckRunRow).where(
                    CheckRunRow.repo == repo,
                    CheckRunRow.pr_number == pr_number,
                    CheckRunRow.status != "completed",
                )
            )
            return [_check_run(row) for row in rows]

    def recent_check_runs(self, limit: int = 100) -> list[CheckRun]:
        with self._session() as session:
            rows = session.scalars(select(CheckRunRow).order_by(CheckRunRow.id.desc()).limit(limit))
            return [_check_run(row) for row in rows]

    def forget_work(self, work_key: str) -> None:
        """An explicit re-run (`/proctor run`): the same work may be done again, under a new check run."""
        with self._session() as session:
            row = session.scalars(select(CheckRunRow).where(CheckRunRow.work_key == work_key)).first()
            if row is not None and row.status == "completed":
                session.delete(row)

    # -- comments, base scores, approvals, accepted suites

    def comment_id(self, repo: str, pr_number: int) -> int | None:
        with self._session() as session:
            row = session.get(CommentRow, (repo, pr_number))
            return row.comment_id if row is not None else None

    def save_comment_id(self, repo: str, pr_number: int, comment_id: int) -> None:
        with self._session() as session:
            session.merge(CommentRow(repo=repo, pr_number=pr_number, comment_id=comment_id))

    def base_score(self, repo: str, base_sha: str, evaluator_id: str) -> dict[str, Any] | None:
        with self._session() as session:
            row = session.get(BaseScoreRow, (repo, base_sha, evaluator_id))
            return json.loads(row.record) if row is not None else None

    def save_base_score(self, repo: str, base_sha: str, evaluator_id: str, record: Mapping[str, Any]) -> None:
        with self._session() as session:
            session.merge(
                BaseScoreRow(
                    repo=repo, base_sha=base_sha, evaluator_id=evaluator_id, record=json.dumps(record)
                )
            )

    def approve(self, repo: str, pr_number: int, head_sha: str, by: str) -> None:
        with self._session() as session:
            session.merge(ApprovalRow(repo=repo, pr_number=pr_number, head_sha=head_sha, approved_by=by))

    def approved(self, repo: str, pr_number: int, head_sha: str) -> bool:
        with self._session() as session:
            return session.get(ApprovalRow, (repo, pr_number, head_sha)) is not None

    def accept_suite(self, repo: str, pr_number: int, evaluator_id: str, version: int) -> None:
        with self._session() as session:
            session.merge(
                AcceptedSuiteRow(repo=repo, pr_number=pr_number, evaluator_id=evaluator_id, version=version)
            )

    def accepted_suites(self, repo: str, pr_number: int) -> dict[str, int]:
        with self._session() as session:
            rows = session.scalars(
                select(AcceptedSuiteRow).where(
                    AcceptedSuiteRow.repo == repo, AcceptedSuiteRow.pr_number == pr_number
                )
            )
            return {row.evaluator_id: row.version for row in rows}

    # -- campaigns on PRs (the dashboard lists them and serves `report_path` at /campaigns/{id})

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

    # -- sections of the one PR comment

    def save_comment_section(self, repo: str, pr_number: int, name: str, body: str) -> None:
        with self._session() as session:
            session.merge(CommentSectionRow(repo=repo, pr_number=pr_number, name=name, body=body))

    def comment_sections(self, repo: str, pr_number: int) -> dict[str, str]:
        with self._session() as session:
            rows = session.scalars(
                select(CommentSectionRow).where(
                    CommentSectionRow.repo == repo, CommentSectionRow.pr_number == pr_number
                )
            )
            return {row.name: row.body for row in rows}

    # -- delivery branches (github_app/delivery.py)

    def record_delivery_push(self, repo: str, branch: str, sha: str) -> None:
        with self._session() as session:
            session.merge(DeliveryPushRow(repo=repo, branch=branch, sha=sha, pushed_at=time.time()))

    def pushed_by_app(self, repo: str, branch: str, sha: str) -> bool:
        with self._session() as session:
            return session.get(DeliveryPushRow, (repo, branch, sha)) is not None


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


def _check_run(row: CheckRunRow) -> CheckRun:
    return CheckRun(
        row.work_key,
        row.repo,
        row.pr_number,
        row.head_sha,
        row.check_run_id,
        row.status,
        row.conclusion,
        row.result,
    )
