"""The judge's answer cache (SPEC §7 Cache): one SQLite file, safe for threads and for concurrent runs.

The key is the sha256 of everything that decides an answer: model, base_url, rendered messages, sampling
parameters, template version, rotation id and sample index. Only usable answers are stored — HTTP errors and
unparseable answers never are, so a re-run asks again instead of replaying a failure. A hit costs $0.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import JudgeError

DEFAULT_CACHE_PATH = Path(".proctor") / "judge-cache.sqlite"


def cache_key(
    *,
    model: str,
    base_url: str,
    messages: Sequence[Mapping[str, str]],
    params: Mapping[str, Any],
    template_version: str,
    rotation: str,
    sample: int,
) -> str:
    payload = {
        "base_url": base_url.rstrip("/"),
        "messages": [dict(m) for m in messages],
        "model": model,
        "params": dict(params),
        "rotation": rotation,
        "sample": sample,
        "template_version": template_version,
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    content: str
    prompt_tokens: int
    completion_tokens: int


class JudgeCache:
    """Answers by key. One connection shared under a lock; WAL so other processes can read while we write."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS answers ("
                " key TEXT PRIMARY KEY, model TEXT NOT NULL, content TEXT NOT NULL,"
                " prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, created_at REAL NOT NULL)"
            )
        except (OSError, sqlite3.Error) as exc:
            raise JudgeError(f"{self.path}: cannot open the judge cache: {exc}", path=self.path) from None
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedAnswer | None:
        with self._lock:
            row = self._db.execute(
                "SELECT content, prompt_tokens, completion_tokens FROM answers WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else CachedAnswer(str(row[0]), int(row[1]), int(row[2]))

    def put(self, key: str, model: str, answer: CachedAnswer) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                (key, model, answer.content, answer.prompt_tokens, answer.completion_tokens, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
