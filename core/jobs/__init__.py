"""Jobs over huey (SPEC §5.6): one interface for campaign measurements and app jobs, on Redis or SQLite."""

from core.errors import JobQueueError
from core.jobs.backend import is_redis, open_huey, sqlite_url
from core.jobs.queue import JobFailure, JobQueue, JobStatus, Outcome

__all__ = [
    "JobFailure",
    "JobQueue",
    "JobQueueError",
    "JobStatus",
    "Outcome",
    "is_redis",
    "open_huey",
    "sqlite_url",
]
