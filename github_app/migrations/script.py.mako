"""${message}"""

from __future__ import annotations

import sqlalchemy as sa

from github_app.migrations import revision_ids
from github_app.migrations.schema import create_table

revision, down_revision = revision_ids(__file__)


def upgrade() -> None:
    ${upgrades if upgrades else "pass"}
