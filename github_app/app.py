"""One place that wires the app (STYLE §1): settings → store, queue, GitHub client, router, web, worker."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from github_app import prompt_job  # noqa: F401 (registers the prompt optimization handler)
from github_app.feedback_store import FeedbackStore
from github_app.handlers import router
from github_app.jobs import JobRunner, PortFactory
from github_app.queue import JobQueue
from github_app.settings import Settings
from github_app.store import Store

if TYPE_CHECKING:
    from fastapi import FastAPI


class App:
    def __init__(self, settings: Settings, ports: PortFactory | None = None) -> None:
        self.settings = settings
        self.store = Store(settings.db_url)
        self.queue = JobQueue(settings.queue_url, settings.queue_file)
        self._ports = ports
        self.feedback = FeedbackStore(self.store.engine)

    def ports(self) -> PortFactory:
        if self._ports is None:
            from github_app.gh import AppClient

            client = AppClient(self.settings.app_id, self.settings.private_key, self.settings.github_api)
            self._ports = client.port
        return self._ports

    def web(self) -> FastAPI:
        from github_app.feedback import FeedbackApi
        from github_app.prompt_tasks import TaskConfigs
        from github_app.web import create_app

        settings = self.settings
        ports = self.ports()
        tasks = TaskConfigs(settings.data_dir, lambda installation: ports(installation).token())
        return create_app(
            settings.webhook_secret,
            self.store,
            self.queue,
            router,
            settings.dashboard_token,
            settings.data_dir,
            FeedbackApi(self.feedback, self.store, self.queue, tasks),
        )

    def runner(self) -> JobRunner:
        settings = self.settings
        return JobRunner(
            self.store,
            self.queue,
            router,
            self.ports(),
            settings.data_dir,
            settings.public_url,
            settings.campaign_queue,
        )

    def work(self, stop: threading.Event) -> None:
        """Re-enqueue what a previous run left unfinished, then run jobs until `stop`."""
        runner = self.runner()
        runner.recover()
        self.queue.on_beat, self.queue.periodic = self.store.touch, self._reclaim  # see Store.reclaim
        self.queue.work(runner.run, stop)

    def _reclaim(self) -> None:
        """Jobs whose worker died while this one runs (on another machine, say) are queued again."""
        for job_id in self.store.reclaim():
            self.queue.enqueue(job_id)
