"""Alembic's entry: runs the revisions on the connection `github_app.migrations.upgrade` hands in."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
