"""Campaigns on PRs, the sections of the app's one PR comment, and the app's pushes to delivery branches."""

from __future__ import annotations

import sqlalchemy as sa

from github_app.migrations import revision_ids
from github_app.migrations.schema import create_table

revision, down_revision = revision_ids(__file__)


def upgrade() -> None:
    create_table(
        "campaigns",
        sa.Column("campaign_id", sa.String(128), primary_key=True),
        sa.Column("repo", sa.String(256), nullable=False),
        sa.Column("pr_number", sa.Integer, nullable=False),
        sa.Column("job_id", sa.Integer, nullable=False, unique=True),
        sa.Column("head_sha", sa.String(64), nullable=False),
        sa.Column("check_run_id", sa.Integer, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("report_path", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("winner_commit", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        indexes=("repo",),
    )
    create_table(
        "comment_sections",
        sa.Column("repo", sa.String(256), primary_key=True),
        sa.Column("pr_number", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("body", sa.Text, nullable=False),
    )
    create_table(
        "delivery_pushes",
        sa.Column("repo", sa.String(256), primary_key=True),
        sa.Column("branch", sa.String(256), primary_key=True),
        sa.Column("sha", sa.String(64), primary_key=True),
        sa.Column("pushed_at", sa.Double, nullable=False),
    )
