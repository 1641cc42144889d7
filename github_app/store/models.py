"""The app database's tables as SQLAlchemy models: the schema `github_app/migrations` migrates to.

tests/github_app/test_store_migrations.py compares the migrated schema with these models, so a column added
here needs its revision there.
"""

from __future__ import annotations

from sqlalchemy import Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "JOB_DONE",
    "JOB_FAILED",
    "JOB_PENDING",
    "JOB_RUNNING",
    "AcceptedSuiteRow",
    "ApprovalRow",
    "Base",
    "BaseScoreRow",
    "CampaignRow",
    "CheckRunRow",
    "CommentRow",
    "CommentSectionRow",
    "DeliveryPushRow",
    "DeliveryRow",
    "JobRow",
]

JOB_PENDING, JOB_RUNNING, JOB_DONE, JOB_FAILED = "pending", "running", "done", "failed"


class Base(DeclarativeBase):
    pass


class DeliveryRow(Base):
    __tablename__ = "deliveries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    delivery_id: Mapped[str] = mapped_column(String(128), unique=True)
    event: Mapped[str] = mapped_column(String(128))
    action: Mapped[str] = mapped_column(String(128), default="")
    received_at: Mapped[float] = mapped_column()


class JobRow(Base):
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


class CheckRunRow(Base):
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


class CommentRow(Base):
    __tablename__ = "comments"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    comment_id: Mapped[int] = mapped_column(Integer)


class BaseScoreRow(Base):
    __tablename__ = "base_scores"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    base_sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    evaluator_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    record: Mapped[str] = mapped_column(Text)


class ApprovalRow(Base):
    __tablename__ = "approvals"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    head_sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    approved_by: Mapped[str] = mapped_column(String(256))


class AcceptedSuiteRow(Base):
    __tablename__ = "accepted_suites"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    evaluator_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)


class CampaignRow(Base):
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


class CommentSectionRow(Base):
    """One named section (`pr`, `campaign`) of the app's one comment on a PR."""

    __tablename__ = "comment_sections"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    body: Mapped[str] = mapped_column(Text)


class DeliveryPushRow(Base):
    """A commit the app pushed (or was about to push) to a delivery branch: the branch is the app's own
    while its tip is one of these."""

    __tablename__ = "delivery_pushes"
    repo: Mapped[str] = mapped_column(String(256), primary_key=True)
    branch: Mapped[str] = mapped_column(String(256), primary_key=True)
    sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    pushed_at: Mapped[float] = mapped_column(default=0.0)
