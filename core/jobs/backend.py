"""Which huey a queue URL names: `redis://…` (RedisHuey, many machines) or `sqlite:///file` (one machine).

One place parses the URL so the campaign's queue, `proctor worker` and the GitHub App agree on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import JobQueueError, redact_url

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
SQLITE_SCHEME = "sqlite:///"


def is_redis(url: str) -> bool:
    return url.startswith(REDIS_SCHEMES)


def open_huey(url: str, name: str, *, results: bool = False, fsync: bool = True) -> Any:
    """A huey instance for `url`: RedisHuey for redis:// (the `redis` extra), SqliteHuey for sqlite:///path."""
    from huey import RedisHuey, SqliteHuey

    if is_redis(url):
        try:
            import redis  # noqa: F401  (only to say which extra is missing)
        except ImportError:
            raise JobQueueError(
                f"queue {redact_url(url)!r} needs the redis client: pip install 'proctor[redis]'", url=url
            ) from None
        return RedisHuey(name, url=url, results=results)
    if url.startswith(SQLITE_SCHEME):
        path = Path(url[len(SQLITE_SCHEME) - 1 :])
        if not path.parent.is_dir():
            raise JobQueueError(f"queue {url!r}: directory {str(path.parent)!r} does not exist", url=url)
        return SqliteHuey(name, filename=str(path), results=results, fsync=fsync)
    raise JobQueueError(
        f"queue {redact_url(url)!r} is not a queue URL: expected redis://HOST:PORT/DB or sqlite:///ABSOLUTE/PATH",
        url=url,
    )


def sqlite_url(path: Path) -> str:
    return SQLITE_SCHEME + str(path.resolve()).lstrip("/")
