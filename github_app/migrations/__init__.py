"""The app database's schema, migrated by Alembic (`upgrade`); safe to run twice and on an existing database.

Every revision creates what is missing and leaves what exists: a database made before migrations existed
(tables from `create_all`, no `alembic_version`) is brought to the head without losing a row. Concurrent
starts (several app workers on one PostgreSQL) take turns: a transaction-scoped advisory lock on PostgreSQL, a
file lock beside a SQLite file.

A new table or column: add a revision in versions/ (copy the newest), set `HEAD` to it; the test
tests/github_app/test_store_migrations.py fails until the migrated schema matches github_app/store/models.py.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

if TYPE_CHECKING:
    from alembic.config import Config

HEAD = "0003"
_PG_LOCK_KEY = 0x70726F63  # "proc": one advisory lock id for the app's migrations
HERE = Path(__file__).resolve().parent


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
