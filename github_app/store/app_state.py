"""`Store`: the app's state in one object, made of one part per group of tables.

Every caller (the webhook, the workers, the dashboard) holds one `Store`; each part owns its tables and
shares the engine and sessions of `StoreBase`, so a method keeps its name wherever its table lives.
"""

from __future__ import annotations

from github_app.store.campaigns import CampaignRecords
from github_app.store.jobs import JobQueue
from github_app.store.pull_requests import PullRequestState

__all__ = ["Store"]


class Store(JobQueue, PullRequestState, CampaignRecords):
    """All reads and writes of app state; each method is one short transaction."""
