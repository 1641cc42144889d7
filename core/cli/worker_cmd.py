"""`proctor worker`: run queued jobs (campaign measurements) on this machine (README "Scaling out").

Exit codes: 0 stopped (SIGTERM, Ctrl-C or --max-jobs reached), 2 the queue URL is invalid or unreachable
(handled centrally for ProctorError).
"""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    app.command("worker")(worker)


def worker(
    queue: Annotated[
        str,
        typer.Option(
            "--queue", envvar="PROCTOR_QUEUE", help="The queue: redis://HOST:PORT/DB or sqlite:///PATH."
        ),
    ],
    heartbeat: Annotated[
        float,
        typer.Option(
            "--heartbeat", help="Seconds between lease renewals (keep well under the owner's lease)."
        ),
    ] = 2.0,
    max_jobs: Annotated[
        int | None, typer.Option("--max-jobs", help="Stop after this many jobs (default: run until stopped).")
    ] = None,
) -> None:
    """Take jobs from the queue one at a time and run them; SIGTERM or Ctrl-C stops after the current one."""
    from core.errors import redact_url
    from core.jobs.queue import JobQueue
    from core.jobs.worker import serve, worker_id

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("huey").setLevel(logging.WARNING)  # one line per job is ours (proctor.worker)
    jobs = JobQueue(queue)
    stop = threading.Event()

    def _stop(_signum: int, _frame: FrameType | None) -> None:
        if stop.is_set():
            raise KeyboardInterrupt  # a second signal: stop now, the owner re-queues the job
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    typer.echo(f"proctor worker {worker_id()} on {redact_url(queue)}", err=True)
    ran = serve(jobs, stop, heartbeat_s=heartbeat, max_jobs=max_jobs)
    typer.echo(f"proctor worker stopped after {ran} job(s)", err=True)
