"""Prompt-task feedback and the API keys that may post it (github_app/feedback_store.py's tables)."""

from __future__ import annotations

import sqlalchemy as sa

from github_app.migrations import revision_ids
from github_app.migrations.schema import create_table

revision, down_revision = revision_ids(__file__)


def upgrade() -> None:
    create_table(
        "feedback_api_keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("repo", sa.String(256), nullable=False),
        sa.Column("installation_id", sa.Integer, nullable=False),
        sa.Column("clone_url", sa.Text, nullable=False),
        sa.Column("default_branch", sa.String(256), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        indexes=("repo",),
    )
    create_table(
        "feedback",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("repo", sa.String(256), nullable=False),
        sa.Column("task", sa.String(64), nullable=False),
        sa.Column("inputs", sa.Text, nullable=False),
        sa.Column("output", sa.Text, nullable=False),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("source", sa.String(200), nullable=True),
        sa.Column("idempotency_key", sa.String(200), nullable=True),
        sa.Column("body_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("repo", "task", "idempotency_key"),
        indexes=("repo", "task"),
    )
