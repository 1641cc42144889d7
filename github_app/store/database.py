"""The app database: an engine migrated to the current schema, and the one-transaction sessions every
store method runs in (SQLite in PROCTOR_DATA_DIR by default, PostgreSQL at scale)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, event, inspect
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from github_app.migrations import upgrade
from github_app.store.models import Base

__all__ = ["StoreBase", "engine_url", "make_engine"]

log = logging.getLogger("proctor.app.store")


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
    missing = [t for t in Base.metadata.sorted_tables if not inspect(engine).has_table(t.name)]
    if missing:
        log.warning("tables without a migration: %s", ", ".join(t.name for t in missing))
        Base.metadata.create_all(engine, tables=missing)


class StoreBase:
    """The engine and the session factory the store's parts share; each method is one short transaction."""

    def __init__(self, url: str, *, lease_s: float = 300.0) -> None:
        """`lease_s`: how long another machine's claim stays valid without a renewal (`touch`)."""
        self.engine = make_engine(url)
        self.lease_s = lease_s
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def _session(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session
