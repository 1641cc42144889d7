"""Feedback on prompt tasks and the API keys that may post it (SPEC §10 "Prompt tasks and feedback").

Its tables live in the app's database beside `Store`'s (same engine, own metadata). Keys are stored as their
SHA-256 only: a key is 32 random bytes, so a fast hash is enough and the database never holds one that works.
Feedback is unique per (repository, task, Idempotency-Key), so a retried post is recognised by the database,
not by a lock in this process.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Float, Integer, String, Text, UniqueConstraint, func, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

KEY_PREFIX = "pfk_"


class _Base(DeclarativeBase):
    pass


class ApiKeyRow(_Base):
    __tablename__ = "feedback_api_keys"
    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    repo: Mapped[str] = mapped_column(String(256), index=True)
    installation_id: Mapped[int] = mapped_column(Integer)
    clone_url: Mapped[str] = mapped_column(Text)
    default_branch: Mapped[str] = mapped_column(String(256))
    created_at: Mapped[float] = mapped_column(Float)


class FeedbackRow(_Base):
    __tablename__ = "feedback"
    __table_args__ = (UniqueConstraint("repo", "task", "idempotency_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    repo: Mapped[str] = mapped_column(String(256), index=True)
    task: Mapped[str] = mapped_column(String(64), index=True)
    inputs: Mapped[str] = mapped_column(Text)  # JSON
    output: Mapped[str] = mapped_column(Text)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    source: Mapped[str | None] = mapped_column(String(200), nullable=True)
    idempotency_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    body_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[float] = mapped_column(Float)


@dataclass(frozen=True)
class ApiKey:
    """What a key opens: one repository, reached through one installation."""

    repo: str
    installation_id: int
    clone_url: str
    default_branch: str


@dataclass(frozen=True)
class Feedback:
    id: int
    repo: str
    task: str
    inputs: Any
    output: str
    score: float | None
    source: str | None
    created_at: float
    body_hash: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "task": self.task,
            "inputs": self.inputs,
            "output": self.output,
            "score": self.score,
            "source": self.source,
            "created_at": self.created_at,
        }


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def body_hash(body: dict[str, Any]) -> str:
    """What tells a retried post (same body) from a reused Idempotency-Key (another body)."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _feedback(row: FeedbackRow) -> Feedback:
    return Feedback(
        row.id,
        row.repo,
        row.task,
        json.loads(row.inputs),
        row.output,
        row.score,
        row.source,
        row.created_at,
        row.body_hash,
    )


class FeedbackStore:
    def __init__(self, engine: Engine) -> None:
        _Base.metadata.create_all(engine)
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @contextmanager
    def _session(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session

    def create_key(self, repo: str, installation_id: int, clone_url: str, default_branch: str) -> str:
        """A new key for `repo`; the plain key is returned once and never stored."""
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        with self._session() as session:
            session.add(
                ApiKeyRow(
                    key_hash=hash_key(key),
                    repo=repo,
                    installation_id=installation_id,
                    clone_url=clone_url,
                    default_branch=default_branch,
                    created_at=time.time(),
                )
            )
        return key

    def key(self, key: str) -> ApiKey | None:
        with self._session() as session:
            row = session.get(ApiKeyRow, hash_key(key))
            if row is None:
                return None
            return ApiKey(row.repo, row.installation_id, row.clone_url, row.default_branch)

    def add(
        self, repo: str, task: str, body: dict[str, Any], idempotency_key: str | None
    ) -> tuple[Feedback, bool]:
        """Store one item; `(item, False)` when this Idempotency-Key was used before (the first item)."""
        row = FeedbackRow(
            repo=repo,
            task=task,
            inputs=json.dumps(body["inputs"]),
            output=body["output"],
            score=body.get("score"),
            source=body.get("source"),
            idempotency_key=idempotency_key,
            body_hash=body_hash(body),
            created_at=time.time(),
        )
        try:
            with self._session() as session:
                session.add(row)
            return _feedback(row), True
        except IntegrityError:
            if idempotency_key is None:
                raise
        first = self._by_key(repo, task, idempotency_key)
        assert first is not None
        return first, False

    def _by_key(self, repo: str, task: str, idempotency_key: str) -> Feedback | None:
        with self._session() as session:
            row = session.scalars(
                select(FeedbackRow).where(
                    FeedbackRow.repo == repo,
                    FeedbackRow.task == task,
                    FeedbackRow.idempotency_key == idempotency_key,
                )
            ).first()
            return _feedback(row) if row is not None else None

    def count(self, repo: str, task: str) -> int:
        with self._session() as session:
            query = select(func.count()).where(FeedbackRow.repo == repo, FeedbackRow.task == task)
            return int(session.scalar(query) or 0)

    def page(self, repo: str, task: str, after: int, limit: int) -> list[Feedback]:
        """Items with an id above `after`, oldest first (a cursor that stays valid while items arrive)."""
        with self._session() as session:
            rows = session.scalars(
                select(FeedbackRow)
                .where(FeedbackRow.repo == repo, FeedbackRow.task == task, FeedbackRow.id > after)
                .order_by(FeedbackRow.id)
                .limit(limit)
            )
            return [_feedback(row) for row in rows]

    def upto(self, repo: str, task: str, last_id: int) -> list[Feedback]:
        """Every item up to and including `last_id`: what one optimization works on."""
        with self._session() as session:
            rows = session.scalars(
                select(FeedbackRow)
                .where(FeedbackRow.repo == repo, FeedbackRow.task == task, FeedbackRow.id <= last_id)
                .order_by(FeedbackRow.id)
            )
            return [_feedback(row) for row in rows]
