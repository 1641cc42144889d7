"""The app database's schema, migrated by Alembic (`upgrade`); safe to run twice and on an existing database.

Every revision creates what is missing and leaves what exists: a database made before migrations existed
(tables from `create_all`, no `alembic_version`) is brought to the head without losing a row. Concurrent
starts (several app workers on one PostgreSQL) take turns: a transaction-scoped advisory lock on PostgreSQL, a
file lock beside a SQLite file.

A new table or column: add the next numbered revision in versions/ (`NNNN_what.py`, copy the newest); its ids
come from its number (`revision_ids`) and `HEAD` is the newest number. The test
tests/github_app/test_store_migrations.py fails until the migrated schema matches github_app/store/models.py.
"""

from __future__ import annotations

import contextlib
import fcntl
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

if TYPE_CHECKING:
    from alembic.config import Config

_PG_LOCK_KEY = 0x70726F63  # "proc": one advisory lock id for the app's migrations
HERE = Path(__file__).resolve().parent
_NUMBERED = re.compile(r"(\d{4})_\w+\.py")


def revision_ids(file: str) -> tuple[str, str | None]:
    """`revision, down_revision = revision_ids(__file__)` in a revision: `versions/0002_what.py` is revision
    "0002" and revises "0001" ("0001" revises nothing). The revisions are one line numbered in order, so the
    number is all Alembic needs, and two files cannot claim the same parent by a copy-paste slip."""
    found = _NUMBERED.fullmatch(Path(file).name)
    if found is None:
        raise ValueError(f"{file}: a revision file is named NNNN_what.py")
    number = int(found.group(1))
    return f"{number:04d}", f"{number - 1:04d}" if number > 1 else None


def _newest() -> str:
    numbers = [revision_ids(p.name)[0] for p in (HERE / "versions").iterdir() if _NUMBERED.fullmatch(p.name)]
    return max(numbers)


HEAD = _newest()


def alembic_config(connection: Connection) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.attributes["connection"] = connection
    return config


def current_revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table("alembic_version"):
        return None
    found = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return str(found) if found is not None else None


def upgrade(engine: Engine) -> None:
    """Bring the database to `HEAD` (a no-op, one query, when it is there already)."""
    from alembic import command

    with engine.connect() as probe:
        if current_revision(probe) == HEAD:
            return
    with _file_lock(engine), engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
        command.upgrade(alembic_config(connection), "head")


@contextlib.contextmanager
def _file_lock(engine: Engine) -> Iterator[None]:
    """For a SQLite file: one migrating process at a time (its DDL is not transactional under pysqlite)."""
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:":
        yield
        return
    with open(f"{database}.migrate-lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
