"""The app's state through SQLAlchemy 2 (SQLite in PROCTOR_DATA_DIR by default, PostgreSQL at scale).

- `models`: the tables (the schema github_app/migrations migrates to).
- `database`: the migrated engine and the one-transaction sessions.
- `jobs`: deliveries and the job outbox (webhook and worker side).
- `pull_requests`: check runs, the PR comment, base scores, approvals, accepted suites.
- `campaigns`: campaigns on PRs and the app's pushes to delivery branches.
- `app_state`: `Store`, which puts the parts together.
"""

from __future__ import annotations

from github_app.store.app_state import Store
from github_app.store.campaigns import Campaign
from github_app.store.database import engine_url, make_engine
from github_app.store.jobs import Job, NewJob, worker_identity
from github_app.store.models import JOB_DONE, JOB_FAILED, JOB_PENDING, JOB_RUNNING
from github_app.store.pull_requests import CheckRun

__all__ = [
    "JOB_DONE",
    "JOB_FAILED",
    "JOB_PENDING",
    "JOB_RUNNING",
    "Campaign",
    "CheckRun",
    "Job",
    "NewJob",
    "Store",
    "engine_url",
    "make_engine",
    "worker_identity",
]
