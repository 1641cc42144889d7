"""`/proctor campaign` on an App whose queue is a real redis-server: the PR campaign's measurements go to
`proctor worker`s through that queue (as `proctor campaign --queue` sends them), not to the App worker's own
process pool, and the check run, the delivery and the scoreboard are the ones the process pool gives."""

from __future__ import annotations

from pathlib import Path

from core.jobs import JobQueue
from tests import servers
from tests.core.campaign.conftest import build_workspace
from tests.core.jobs.workers import workers
from tests.github_app.conftest import REPO, harness_for
from tests.github_app.test_campaigns import BRANCH, _campaign_runs, _command, _feature

redis_server, redis_url = servers.redis_server, servers.redis_url


def _measured_on_workers(logs: Path, campaign_id: str) -> list[int]:
    """The candidate indexes the workers' logs say they measured for `campaign_id` (0 is the baseline)."""
    prefix = f"job campaign:{campaign_id}:"
    lines = [line for log in logs.iterdir() for line in log.read_text().splitlines()]
    return sorted(
        int(line.split(prefix, 1)[1].split(":", 1)[0])
        for line in lines
        if prefix in line and "): done" in line
    )


def test_a_pr_campaign_measures_on_the_app_s_redis_queue(
    tmp_path: Path, app_key: tuple[str, str], redis_url: str
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    ws = build_workspace(tmp_path / "work")
    with (
        harness_for(tmp_path, ws, app_key, PROCTOR_QUEUE=redis_url) as harness,
        workers(redis_url, 2, logs=logs),
    ):
        head = _feature(harness)
        _command(harness, "/proctor campaign")
        (run,) = _campaign_runs(harness, head)
        (campaign,) = harness.app.store.campaigns(REPO, 5)
        delivered = harness.fake.branch_sha(REPO, BRANCH)
        better = harness.project.sha("candidate/better")
    assert run.conclusion == "success"
    assert run.output["title"].startswith("winner candidate/better: score 0.8000 (+0.3000")
    assert "Rejected candidates (1)" in run.output["summary"] and "IN001" in run.output["summary"]
    assert campaign.status == "completed" and delivered == better
    # The PR head (baseline) and the three candidates, each measured once by a `proctor worker`.
    assert _measured_on_workers(logs, campaign.campaign_id) == [0, 1, 2, 3]
    assert JobQueue(redis_url).huey.storage.result_store_size() == 0  # each result recorded, then dropped
