"""Starting and stopping real `proctor worker` processes for the tests and the benchmark."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def start_worker(
    queue_url: str, *, heartbeat_s: float = 0.3, log: Path | None = None
) -> subprocess.Popen[bytes]:
    """`proctor worker` as `python -m core worker` from the repository root (so tests.* job kinds import);
    its log (one line per job: key, attempt, outcome) goes to `log`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "core", "worker", "--queue", queue_url, "--heartbeat", str(heartbeat_s)]
    with open(log, "wb") if log is not None else tempfile.TemporaryFile() as err:
        return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)


def stop_worker(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


@contextlib.contextmanager
def workers(
    queue_url: str, count: int, *, heartbeat_s: float = 0.3, logs: Path | None = None
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`count` workers (logs in `logs`/worker-N.log when given), SIGKILLed afterwards."""
    started = [
        start_worker(queue_url, heartbeat_s=heartbeat_s, log=logs / f"worker-{n}.log" if logs else None)
        for n in range(count)
    ]
    try:
        yield started
    finally:
        for process in started:
            stop_worker(process)
