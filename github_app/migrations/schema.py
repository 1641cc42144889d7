"""Helpers the revisions share: create a table or index only when it is missing (re-runnable revisions)."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


def create_table(name: str, *items: sa.Column[object] | sa.Constraint, indexes: Sequence[str] = ()) -> None:
    """`op.create_table` unless the table exists (made by an older app's `create_all`); then its indexes
    `ix_<table>_<column>`, the names SQLAlchemy gives `index=True`, each unless it exists."""
    inspector = sa.inspect(op.get_bind())
    if not inspector.has_table(name):
        op.create_table(name, *items)
    existing = {index["name"] for index in sa.inspect(op.get_bind()).get_indexes(name)}
    for column in indexes:
        if f"ix_{name}_{column}" not in existing:
            op.create_index(f"ix_{name}_{column}", name, [column])
