"""The local pool's answer to a measuring process that dies (the OOM killer, a segfault in the worker): the
candidate is measured again in a fresh pool, and after `MAX_POOL_RETRIES` fresh pools it is failed with a
reason the scoreboard shows; a measurement that raises is that candidate's failure. Real forked workers
that really exit: only the measuring function is swapped for one that dies on cue."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.campaign import measuring
from core.campaign.model import CandidateRecord


@dataclass(frozen=True)
class _Sandbox:
    def describe(self) -> str:
        return "process (test)"


@dataclass(frozen=True)
class _Job:
    """What the pool and `failed_record` read of a MeasureJob, plus how often its worker is to die first."""

    index: int
    ref: str
    deaths: int
    tally: str  # a directory: one file per death, so the count survives the dead worker
    commit: str = "c0ffee"
    parent_ref: str = "main"
    sandbox: _Sandbox = _Sandbox()


def _dies_first(job: _Job) -> CandidateRecord:
    """Kill this worker process `job.deaths` times, then measure."""
    tally = Path(job.tally)
    if len(list(tally.iterdir())) < job.deaths:
        (tally / str(len(list(tally.iterdir())))).touch()
        os._exit(1)
    return CandidateRecord(job.index, job.ref, job.commit, job.parent_ref, "scored", score=0.5)


def _raises(job: _Job) -> CandidateRecord:
    raise OSError(f"no space left for {job.ref}")


def _measure(monkeypatch: pytest.MonkeyPatch, function: object, jobs: list[_Job]) -> list[CandidateRecord]:
    monkeypatch.setattr(measuring, "measure", function)
    pool = measuring.PoolMeasurer(parallel=1)
    try:
        return list(pool.measure(jobs))  # type: ignore[arg-type]
    finally:
        pool.close()


def _job(tmp_path: Path, deaths: int) -> _Job:
    tally = tmp_path / "tally"
    tally.mkdir()
    return _Job(1, "candidate/a", deaths, str(tally))


def test_a_worker_that_dies_once_is_measured_again_in_a_fresh_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (record,) = _measure(monkeypatch, _dies_first, [_job(tmp_path, deaths=1)])
    assert record.status == "scored" and record.score == 0.5
    assert len(list((tmp_path / "tally").iterdir())) == 1  # it did die once


def test_a_worker_that_keeps_dying_fails_the_candidate_after_the_retries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (record,) = _measure(monkeypatch, _dies_first, [_job(tmp_path, deaths=measuring.MAX_POOL_RETRIES + 1)])
    assert (record.index, record.ref, record.status) == (1, "candidate/a", "failed")
    assert record.reason == measuring.DIED and record.sandbox == "process (test)"
    assert len(list((tmp_path / "tally").iterdir())) == measuring.MAX_POOL_RETRIES + 1


def test_a_measurement_that_raises_is_that_candidate_s_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (record,) = _measure(monkeypatch, _raises, [_job(tmp_path, deaths=0)])
    assert record.status == "failed"
    assert record.reason == "could not measure: OSError: no space left for candidate/a"
