"""A campaign measured by `proctor worker` processes over a real redis-server: the same scoreboard as the
embedded process pool, also when a worker is killed with SIGKILL in the middle of a measurement."""

from __future__ import annotations

import concurrent.futures as cf
import json
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.campaign import run_campaign
from core.campaign.recording import ProgressEvent
from core.jobs import JobQueue
from tests import servers
from tests.core.campaign.conftest import build_workspace, comparable, predict, scoreboard
from tests.core.jobs.workers import ROOT, workers

redis_server, redis_url = servers.redis_server, servers.redis_url

SLOW = "import time\ntime.sleep({seconds})\n"
SLOW_INDEXES = {"1", "2", "4"}  # better, crash, worse: the baseline and the tampering one are quick


def _candidates(root: Path, seconds: float) -> list[str]:
    """Four candidates: better, worse, crashing, tampering; each takes `seconds` to measure."""
    ws = build_workspace(root)
    slow = SLOW.format(seconds=seconds)
    ws.branch("cand/better", {"solution/predict.py": predict("0.75", before=slow)})
    ws.branch("cand/worse", {"solution/predict.py": predict("0.25", before=slow)})
    ws.branch("cand/crash", {"solution/predict.py": slow + "raise SystemExit(3)\n"})
    ws.branch("cand/tamper", {"kapso_evaluation/evaluate.py": "print('score: 1.0')\n"})
    return ["cand/*"]


class _Finished:
    """A progress callback counting how often the owner recorded each candidate."""

    def __init__(self) -> None:
        self.indexes: list[int] = []

    def __call__(self, event: ProgressEvent) -> None:
        if event.kind == "finished" and event.record is not None:
            self.indexes.append(event.record.index)


def test_two_workers_on_redis_give_the_embedded_scoreboard(redis_url: str, tmp_path: Path) -> None:
    embedded, queued = tmp_path / "embedded", tmp_path / "queued"
    spec = _candidates(embedded, 0.0)
    _candidates(queued, 0.0)
    run_campaign(embedded, candidates=spec, campaign_id="c1")
    finished = _Finished()
    with workers(redis_url, 2):
        run_campaign(queued, candidates=spec, campaign_id="c1", queue=redis_url, progress=finished)
    assert comparable(scoreboard(queued, "c1")) == comparable(scoreboard(embedded, "c1"))
    assert sorted(finished.indexes) == [0, 1, 2, 3, 4]
    assert JobQueue(redis_url).huey.storage.result_store_size() == 0  # the owner cleaned up after itself


def _kill_a_busy_worker(
    url: str, started: list[subprocess.Popen[bytes]], timeout_s: float = 60.0
) -> tuple[int, str]:
    """SIGKILL the first worker seen measuring a candidate; returns its pid and the job's key."""
    storage = JobQueue(url).huey.storage
    by_pid = {process.pid: process for process in started}
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for name, value in storage.result_items().items():
            key = name.removeprefix("job:").removesuffix(":lease")
            if name.endswith(":lease") and key.split(":")[2] in SLOW_INDEXES:
                pid = int(str(pickle.loads(value)[0]).rsplit(":", 1)[1])
                by_pid[pid].send_signal(signal.SIGKILL)
                by_pid[pid].wait(timeout=10)
                return pid, key
        time.sleep(0.02)
    raise AssertionError("no worker took a candidate")


def test_a_worker_killed_mid_measurement_loses_nothing_and_counts_nothing_twice(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedded, queued, logs = tmp_path / "embedded", tmp_path / "queued", tmp_path / "logs"
    logs.mkdir()
    spec = _candidates(embedded, 1.5)
    _candidates(queued, 1.5)
    run_campaign(embedded, candidates=spec, campaign_id="c2")
    monkeypatch.setenv("PROCTOR_JOB_LEASE_S", "4")  # far above the 0.3 s heartbeat
    finished = _Finished()
    with workers(redis_url, 2, logs=logs) as started, cf.ThreadPoolExecutor(1) as owner:
        running = owner.submit(
            run_campaign, queued, candidates=spec, campaign_id="c2", queue=redis_url, progress=finished
        )
        killed, key = _kill_a_busy_worker(redis_url, started)
        result = running.result(timeout=240)
    survivor = next(n for n, p in enumerate(started) if p.pid != killed)
    assert f"job {key} (attempt 2): done" in (logs / f"worker-{survivor}.log").read_text()  # it ran again
    assert comparable(scoreboard(queued, "c2")) == comparable(scoreboard(embedded, "c2"))  # nothing lost
    assert result.winner is not None and result.winner.ref == "cand/better"
    assert sorted(finished.indexes) == [0, 1, 2, 3, 4]  # nothing counted twice


def test_proctor_campaign_with_workers_that_fetch_the_commits_from_a_git_url(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, remote = tmp_path / "repo", tmp_path / "remote.git"
    spec = _candidates(repo, 0.0)
    subprocess.run(["git", "clone", "--quiet", "--mirror", str(repo), str(remote)], check=True)
    monkeypatch.setenv("PROCTOR_WORKER_CACHE", str(tmp_path / "worker-cache"))  # the workers' own copy
    url = ["--queue-repo", remote.as_uri()]
    with workers(redis_url, 1):
        done = subprocess.run(
            [sys.executable, "-m", "core", "campaign", "--repo", str(repo), "--format", "json", *spec, *url],
            cwd=ROOT,
            env={**_env(), "PROCTOR_QUEUE": redis_url},
            capture_output=True,
            timeout=240,
            check=False,
        )
    assert done.returncode == 0, done.stderr.decode()
    board = json.loads(done.stdout)
    assert {c["ref"]: c["status"] for c in board["candidates"]} == {
        "cand/better": "scored",
        "cand/crash": "failed",
        "cand/tamper": "rejected",
        "cand/worse": "scored",
    }
    assert board["winner"]["ref"] == "cand/better"
    assert list((tmp_path / "worker-cache").glob("*/objects"))  # measured from the fetched copy


def test_a_worker_given_a_bad_queue_url_exits_2_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "core", "worker", "--queue", "amqp://nowhere"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode().strip().splitlines() == [
        "proctor: error: queue 'amqp://nowhere' is not a queue URL: expected redis://HOST:PORT/DB or "
        "sqlite:///ABSOLUTE/PATH"
    ]


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PROCTOR_QUEUE"}


def _records_in_checkpoint(repo: Path, campaign_id: str) -> int:
    path = repo / ".proctor" / "campaigns" / campaign_id / "state.json"
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    return len(state.get("records", [])) + (1 if state.get("baseline") else 0)


def _owner_with_two_records(queued: Path, cid: str, spec: list[str], queue: str) -> subprocess.Popen[bytes]:
    """`proctor campaign --queue` in its own process, once its checkpoint holds two records."""
    argv = [sys.executable, "-m", "core", "campaign", "--repo", str(queued), "--campaign-id", cid, *spec]
    owner = subprocess.Popen([*argv, "--queue", queue], cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _records_in_checkpoint(queued, cid) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    return owner


def test_a_campaign_killed_while_workers_measure_resumes_from_their_results(
    redis_url: str, tmp_path: Path
) -> None:
    embedded, queued, logs = tmp_path / "embedded", tmp_path / "queued", tmp_path / "logs"
    logs.mkdir()
    spec = _candidates(embedded, 1.0)
    _candidates(queued, 1.0)
    run_campaign(embedded, candidates=spec, campaign_id="c3")
    with workers(redis_url, 2, logs=logs):
        owner = _owner_with_two_records(queued, "c3", spec, redis_url)
        owner.send_signal(signal.SIGKILL)  # the workers go on measuring what it queued
        owner.wait(timeout=10)
        time.sleep(3.0)  # long enough for them to finish the rest
        finished = _Finished()
        run_campaign(queued, resume=True, campaign_id="c3", queue=redis_url, progress=finished)
    assert comparable(scoreboard(queued, "c3")) == comparable(scoreboard(embedded, "c3"))
    assert finished.indexes and 0 not in finished.indexes  # only what the killed owner had not recorded
    measured = [line for log in logs.iterdir() for line in log.read_text().splitlines() if "): done" in line]
    assert len(measured) == 5, measured  # every measurement once: the resumed owner re-ran none


def test_a_campaign_whose_queue_is_unreachable_exits_2_with_one_line(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    spec = _candidates(repo, 0.0)
    url = f"redis://127.0.0.1:{servers.free_port()}/0"  # nothing listens there
    done = subprocess.run(
        [sys.executable, "-m", "core", "campaign", "--repo", str(repo), "--queue", url, *spec],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 2, lines
    assert len(lines) == 1, lines  # before the campaign's first line: nothing ran
    assert lines[0].startswith(f"proctor: error: queue {url} cannot be reached: ConnectionError"), lines


def test_workers_on_the_embedded_sqlite_queue_give_the_embedded_scoreboard(tmp_path: Path) -> None:
    from core.jobs import sqlite_url

    embedded, queued = tmp_path / "embedded", tmp_path / "queued"
    spec = _candidates(embedded, 0.0)
    _candidates(queued, 0.0)
    run_campaign(embedded, candidates=spec, campaign_id="c4")
    url = sqlite_url(tmp_path / "jobs.sqlite3")
    with workers(url, 2):
        run_campaign(queued, candidates=spec, campaign_id="c4", queue=url)
    assert comparable(scoreboard(queued, "c4")) == comparable(scoreboard(embedded, "c4"))


def test_ctrl_c_withdraws_the_queued_jobs_and_resume_measures_them_afresh(
    redis_url: str, tmp_path: Path
) -> None:
    embedded, queued, logs = tmp_path / "embedded", tmp_path / "queued", tmp_path / "logs"
    logs.mkdir()
    spec = _candidates(embedded, 1.0)
    _candidates(queued, 1.0)
    run_campaign(embedded, candidates=spec, campaign_id="c5")
    with workers(redis_url, 2, logs=logs):
        owner = _owner_with_two_records(queued, "c5", spec, redis_url)
        owner.send_signal(signal.SIGINT)
        assert owner.wait(timeout=60) != 0
        assert _records_in_checkpoint(queued, "c5") < 5  # interrupted with work outstanding
        run_campaign(queued, resume=True, campaign_id="c5", queue=redis_url)
    board = scoreboard(queued, "c5")
    assert comparable(board) == comparable(scoreboard(embedded, "c5"))  # nothing recorded as "cancelled"


def test_the_apps_proctor_queue_sqlite_leaves_campaigns_on_the_local_pool(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    spec = _candidates(repo, 0.0)
    done = subprocess.run(
        [sys.executable, "-m", "core", "campaign", "--repo", str(repo), "--format", "json", *spec],
        cwd=ROOT,
        env={**_env(), "PROCTOR_QUEUE": "sqlite"},  # what the App's setting means by "embedded"
        capture_output=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["winner"]["ref"] == "cand/better"
