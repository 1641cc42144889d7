"""Campaign candidate evaluations as jobs: the owner queues `MeasureJob`s, workers measure them.

The owner (the `proctor campaign` process) keeps the checkpoint, history and scoreboard: it alone writes
them, from the results it reads back. A worker needs the repository's commits, which it reads from the
repository source the owner names: a shared path used as it is, or a git URL fetched into the worker's cache.
Everything else the measurement needs (the trusted suite's snapshot, the config, the sandbox choice, the
hold-out path) travels in the job, and the worker materializes the baseline itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.campaign.model import CandidateRecord
from core.campaign.worker import MeasureJob, failed_record, measure
from core.errors import JobQueueError, ProctorError, redact_url
from core.jobs.queue import JobFailure, JobQueue, Outcome
from core.treewalk import remove_tree

MEASURE_KIND = "core.campaign.remote_measure:measure_remote"
CACHE_ENV = "PROCTOR_WORKER_CACHE"


@dataclass(frozen=True)
class RemoteMeasure:
    """One candidate to measure on a worker; `job.repo`, `baseline_dir` and `work_root` are the owner's."""

    job: MeasureJob
    repo_source: str


def job_key(campaign_id: str, job: MeasureJob) -> str:
    """Same campaign, candidate, commit and suite: the same job (a resumed owner finds its results)."""
    return f"campaign:{campaign_id}:{job.index}:{job.commit}:{job.suite_snapshot.evaluator_id}"


def for_workers(job: MeasureJob, holdout: str) -> MeasureJob:
    """The job as a worker must see it: the hold-out as the absolute path the owner resolved."""
    return dataclasses.replace(job, config=job.config.model_copy(update={"holdout_dir": holdout}))


def measure_on_queue(
    queue: JobQueue, jobs: Sequence[MeasureJob], repo_source: str, campaign_id: str, holdout: str
) -> Iterator[tuple[CandidateRecord, str]]:
    """Queue `jobs` and yield (record, key) as each finishes; on an interruption the rest are cancelled.

    The caller records the candidate, then calls `queue.forget(key)`: a crash in between leaves the result
    in the queue for `--resume` to pick up instead of measuring again.
    """
    by_key = {job_key(campaign_id, job): job for job in jobs}
    finished: set[str] = set()
    try:
        with _reaching(queue):
            for key, job in by_key.items():
                queue.enqueue(MEASURE_KIND, RemoteMeasure(for_workers(job, holdout), repo_source), key)
            outcomes = queue.wait(by_key)
            for outcome in outcomes:
                finished.add(outcome.key)
                yield _record(by_key[outcome.key], outcome), outcome.key
    finally:
        with contextlib.suppress(Exception):  # the queue may be what failed; the workers' leases expire
            for key in set(by_key) - finished:
                queue.withdraw(key)  # their workers stop; `--resume` queues them again


@contextlib.contextmanager
def _reaching(queue: JobQueue) -> Iterator[None]:
    """The queue's server failing (down, wrong password) is one line naming it, not a traceback."""
    try:
        yield
    except ProctorError:
        raise
    except Exception as exc:  # redis-py's and sqlite3's own errors: no common base class to name
        raise JobQueueError(
            f"queue {redact_url(queue.url)}: {type(exc).__name__}: {exc}; finished candidates are in the "
            "checkpoint: continue with --resume",
            url=queue.url,
        ) from exc


def _record(job: MeasureJob, outcome: Outcome) -> CandidateRecord:
    """The worker's record, when it is this candidate's; anything else is this candidate's failure."""
    value = outcome.value
    if isinstance(value, CandidateRecord) and (value.index, value.commit) == (job.index, job.commit):
        return value
    if isinstance(value, CandidateRecord):
        reason = f"the queue returned the record of candidate {value.index} at {value.commit}"
    else:
        reason = outcome.reason or (
            value.error if isinstance(value, JobFailure) else f"no result ({value!r})"
        )
    return failed_record(job, f"could not measure on a worker: {reason}")


# ------------------------------------------------------------------------------------------- worker side


def measure_remote(spec: RemoteMeasure) -> CandidateRecord:
    """The job function: find the commits, materialize the baseline, measure like the process pool does."""
    from core.campaign.tempdirs import make_work_root
    from core.integrity.materialize import materialize

    job = spec.job
    work_root = make_work_root(f"worker-{job.index}")
    try:
        repo = local_repository(spec.repo_source, (job.commit, job.baseline_commit))
        baseline_dir = Path(tempfile.mkdtemp(prefix="baseline-", dir=work_root))
        materialize(repo, job.baseline_commit, baseline_dir)
        return measure(dataclasses.replace(job, repo=repo, baseline_dir=baseline_dir, work_root=work_root))
    except (ProctorError, OSError) as exc:
        return _record(job, Outcome("", "done", JobFailure(f"{type(exc).__name__}: {exc}")))
    finally:
        remove_tree(work_root)


def local_repository(source: str, commits: Sequence[str]) -> Path:
    """A local repository holding `commits`: `source` itself when it is a directory, else a cached mirror."""
    from core.errors import GitError
    from core.integrity.git import run_git

    if Path(source).is_dir():
        return Path(source)
    cache = _cache_dir() / hashlib.sha256(source.encode()).hexdigest()[:24]
    with _locked(cache.with_suffix(".lock")):
        if not cache.is_dir():
            run_git(cache.parent, "clone", "--quiet", "--mirror", "--", source, str(cache))
        if not _has_commits(cache, commits):
            run_git(cache, "fetch", "--quiet", "--prune", "origin")
    if not _has_commits(cache, commits):
        raise GitError(
            f"{source!r} does not hold commit(s) {', '.join(commits)}: push them where workers fetch"
        )
    return cache


def _has_commits(repo: Path, commits: Sequence[str]) -> bool:
    from core.integrity.git import run_git

    return all(run_git(repo, "cat-file", "-t", c, check=False).strip() == "commit" for c in commits)


def _cache_dir() -> Path:
    raw = os.environ.get(CACHE_ENV, "").strip()
    path = Path(raw) if raw else Path.home() / ".cache" / "proctor" / "repos"
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One fetch at a time per cached repository, across the worker processes of one machine."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
