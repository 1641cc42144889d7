"""The app's first schema: deliveries, the job outbox, check runs, comments, base scores, approvals, suites."""

from __future__ import annotations

import sqlalchemy as sa

from github_app.migrations import revision_ids
from github_app.migrations.schema import create_table

revision, down_revision = revision_ids(__file__)


def upgrade() -> None:
    create_table(
        "deliveries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("delivery_id", sa.String(128), nullable=False, unique=True),
        sa.Column("event", sa.String(128), nullable=False),
        sa.Column("action", sa.String(128), nullable=False),
        sa.Column("received_at", sa.Double, nullable=False),
    )
    create_table(
        "jobs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("delivery_id", sa.String(128), nullable=False),
        sa.Column("event", sa.String(128), nullable=False),
        sa.Column("action", sa.String(128), nullable=False),
        sa.Column("repo", sa.String(256), nullable=False),
        sa.Column("pr_number", sa.Integer, nullable=False),
        sa.Column("head_sha", sa.String(64), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("owner", sa.String(256), nullable=False),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Double, nullable=False),
        indexes=("delivery_id", "repo", "status"),
    )
    create_table(
        "check_runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("work_key", sa.String(512), nullable=False),
        sa.Column("repo", sa.String(256), nullable=False),
        sa.Column("pr_number", sa.Integer, nullable=False),
        sa.Column("head_sha", sa.String(64), nullable=False),
        sa.Column("base_sha", sa.String(64), nullable=False),
        sa.Column("check_run_id", sa.Integer, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("conclusion", sa.String(32), nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.UniqueConstraint("work_key"),
        indexes=("repo",),
    )
    create_table(
        "comments",
        sa.Column("repo", sa.String(256), primary_key=True),
        sa.Column("pr_number", sa.Integer, primary_key=True),
        sa.Column("comment_id", sa.Integer, nullable=False),
    )
    create_table(
        "base_scores",
        sa.Column("repo", sa.String(256), primary_key=True),
        sa.Column("base_sha", sa.String(64), primary_key=True),
        sa.Column("evaluator_id", sa.String(64), primary_key=True),
        sa.Column("record", sa.Text, nullable=False),
    )
    create_table(
        "approvals",
        sa.Column("repo", sa.String(256), primary_key=True),
        sa.Column("pr_number", sa.Integer, primary_key=True),
        sa.Column("head_sha", sa.String(64), primary_key=True),
        sa.Column("approved_by", sa.String(256), nullable=False),
    )
    create_table(
        "accepted_suites",
        sa.Column("repo", sa.String(256), primary_key=True),
        sa.Column("pr_number", sa.Integer, primary_key=True),
        sa.Column("evaluator_id", sa.String(64), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
    )
