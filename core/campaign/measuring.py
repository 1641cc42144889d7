"""Where measurements run: the jobs a campaign hands out, and the two places that measure them.

`PoolMeasurer` measures on a local process pool (workers only measure, core/campaign/worker.py);
`QueueMeasurer` sends the jobs to `proctor worker`s through a job queue (core/campaign/remote_measure.py). Both yield
each record as it finishes and leave recording it to the caller: the parent alone writes.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Protocol

from core.campaign.model import CandidateRecord
from core.campaign.state import PlannedCandidate
from core.campaign.worker import MeasureJob, failed_record, init_worker, measure

if TYPE_CHECKING:
    from core.campaign.setup import CampaignSetup
    from core.jobs.queue import JobQueue

MAX_POOL_RETRIES = 2
DIED = "the measuring process died (killed by the system, e.g. out of memory)"


class JobFactory:
    """The measure job for a planned candidate: always the baseline's config, command, suite and sandbox."""

    def __init__(self, setup: CampaignSetup) -> None:
        self.setup = setup

    def baseline(self) -> MeasureJob:
        s = self.setup
        return self.for_plan(PlannedCandidate(0, s.baseline_ref, s.baseline_commit, ""))

    def for_plan(self, planned: PlannedCandidate, env: Mapping[str, str] | None = None) -> MeasureJob:
        """`env`: extra environment for this candidate's evaluator (the prompt source's variables)."""
        s = self.setup
        assert planned.commit is not None
        return MeasureJob(
            repo=s.repo,
            index=planned.index,
            ref=planned.ref,
            commit=planned.commit,
            parent_ref=planned.parent_ref,
            baseline_commit=s.baseline_commit,
            baseline_dir=s.baseline_dir,
            suite_snapshot=s.snapshot,
            config=s.config,
            sandbox=s.sandbox,
            work_root=s.work_root,
            extra_env=tuple(sorted((env or {}).items())),
            evaluator_network=s.source["kind"] == "prompt",  # to reach the judge proxy
            interpreter=s.python.sandbox_interpreter() if s.python is not None else None,
        )


class Measurer(Protocol):
    """Measures jobs somewhere, yielding each record as it finishes."""

    running: int

    def measure(self, jobs: Sequence[MeasureJob]) -> Iterator[CandidateRecord]:
        """Measure `jobs`; a job that cannot be measured yields a failed record, never an exception."""

    def close(self) -> None:
        """The campaign ended normally: release what measuring held."""

    def abort(self) -> None:
        """The campaign was interrupted: stop every measurement now."""


def measurer_for(setup: CampaignSetup) -> Measurer:
    """The queue's workers when the setup names a queue, else a local pool of `setup.parallel` processes."""
    if setup.queue is not None:
        return QueueMeasurer(setup.queue, setup.queue_repo, setup.campaign_id, setup.holdout)
    return PoolMeasurer(setup.parallel)


class PoolMeasurer:
    """`parallel` measurements at a time in forked workers; a worker that dies is retried in a fresh pool,
    then failed."""

    def __init__(self, parallel: int) -> None:
        self.parallel = parallel
        self.pool: cf.ProcessPoolExecutor | None = None
        self.running = 0

    def _pool(self) -> cf.ProcessPoolExecutor:
        if self.pool is None:
            self.pool = cf.ProcessPoolExecutor(
                max_workers=self.parallel,
                mp_context=multiprocessing.get_context("fork"),
                initializer=init_worker,
                initargs=(os.getpid(),),
            )
        return self.pool

    def measure(self, jobs: Sequence[MeasureJob]) -> Iterator[CandidateRecord]:
        attempts: dict[int, int] = {}
        waiting = list(jobs)
        while waiting:
            futures = {self._pool().submit(measure, job): job for job in waiting}
            waiting = []
            self.running = len(futures)
            for future in cf.as_completed(futures):
                job = futures[future]
                self.running = max(0, self.running - 1)
                record = _outcome(future, job, attempts)
                if record is None:
                    waiting.append(job)
                    continue
                yield record
            if waiting and self.pool is not None:
                self.pool.shutdown(wait=True, cancel_futures=True)
                self.pool = None
        self.running = 0

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def abort(self) -> None:
        """Interrupted (Ctrl-C, policy `raise`): stop now. Workers get SIGTERM and kill their evaluators;
        the checkpoint already holds every finished candidate, so the campaign resumes from there."""
        if self.pool is None:
            return
        workers = list(getattr(self.pool, "_processes", {}).values())
        for process in workers:
            with contextlib.suppress(OSError, AttributeError):
                process.terminate()
        self.pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            with contextlib.suppress(OSError, AttributeError, AssertionError):
                process.join(timeout=5)


def _outcome(
    future: cf.Future[CandidateRecord], job: MeasureJob, attempts: dict[int, int]
) -> CandidateRecord | None:
    """The job's record; None when its worker died and it gets another try (counted in `attempts`)."""
    try:
        return future.result()
    except BrokenProcessPool:
        attempts[job.index] = attempts.get(job.index, 0) + 1
        if attempts[job.index] <= MAX_POOL_RETRIES:
            return None
        return failed_record(job, DIED)
    except Exception as exc:  # whatever one candidate does, it is that candidate's failure
        return failed_record(job, f"could not measure: {type(exc).__name__}: {exc}")


class QueueMeasurer:
    """Measures on `proctor worker`s; a result leaves the queue only after the caller recorded it."""

    def __init__(self, queue: JobQueue, repo_source: str, campaign_id: str, holdout: str) -> None:
        self.queue = queue
        self.repo_source = repo_source
        self.campaign_id = campaign_id
        self.holdout = holdout
        self.running = 0

    def measure(self, jobs: Sequence[MeasureJob]) -> Iterator[CandidateRecord]:
        from core.campaign.remote_measure import measure_on_queue

        self.running = len(jobs)
        for record, key in measure_on_queue(
            self.queue, jobs, self.repo_source, self.campaign_id, self.holdout
        ):
            self.running = max(0, self.running - 1)
            yield record
            self.queue.forget(key)
        self.running = 0

    def close(self) -> None:
        """Nothing is held here: the workers belong to the queue."""

    def abort(self) -> None:
        """The queue's own `finally` withdraws what was not measured; its workers stop those jobs."""
