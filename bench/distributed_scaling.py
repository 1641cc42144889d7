"""Distributed scaling (issue 18): one campaign of N candidates with an evaluator that takes `work_s` seconds,
measured by 1, 2 and 4 `proctor worker` processes over a real redis-server, beside the embedded process pool
at parallel 1, 2 and 4, in the same run.

Per setting: wall time, throughput (measurements per second, the baseline included) and the ratio to ideal,
where ideal = (N + 1) × work_s / workers (the evaluator's own time, perfectly divided). The load average is
printed before and after each setting: on a shared machine it says how much of the gap is other people's.
Needs Debian's `redis-server`. The sandbox is `process` in both, so the numbers compare dispatch, not sandboxes.

    .venv/bin/python bench/distributed_scaling.py [--candidates 40] [--work-s 1.0] [--workers 1 2 4]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _campaign_repos import commit_value_candidates  # noqa: E402

from core.campaign import run_campaign  # noqa: E402


def make_repo(root: Path, candidates: int, work_s: float) -> Path:
    """An evaluator that sleeps `work_s` then prints solution/value.txt as the score; one branch per value."""
    (root / "kapso_evaluation").mkdir(parents=True)
    (root / "solution").mkdir()
    (root / "kapso_evaluation" / "evaluate.py").write_text(
        f"import time\nfrom pathlib import Path\ntime.sleep({work_s})\n"
        "print('score: ' + Path('solution/value.txt').read_text().strip())\n"
    )
    (root / "solution" / "value.txt").write_text("0.5\n")
    (root / "proctor.toml").write_text('metric = "score"\ntimeout_s = 120\n[campaign]\nsandbox = "process"\n')
    commit_value_candidates(root, candidates)
    return root


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed (Debian: apt-get install redis-server)")
    port = free_port()
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    server = subprocess.Popen([*argv, "--dir", str(workdir)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            if time.monotonic() > deadline:
                raise SystemExit("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextmanager
def workers(url: str, count: int, logs: Path) -> Iterator[None]:
    """`count` workers, returned once each has said it is listening (start-up is not part of the timing)."""
    argv = [sys.executable, "-m", "core", "worker", "--queue", url]
    paths = [logs / f"worker-{count}-{n}.log" for n in range(count)]
    started = []
    for path in paths:
        with open(path, "wb") as log:
            started.append(subprocess.Popen(argv, cwd=ROOT, stderr=log))
    try:
        deadline = time.monotonic() + 60
        while not all(b"proctor worker" in path.read_bytes() for path in paths):
            if time.monotonic() > deadline:
                raise SystemExit("the workers did not start")
            time.sleep(0.05)
        yield
    finally:
        for process in started:
            process.terminate()
        for process in started:
            process.wait(timeout=60)


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def one_run(label: str, repo: Path, count: int, work_s: float, workers_n: int, **queue: str) -> float:
    measurements = count + 1
    before = load()
    started = time.perf_counter()
    result = run_campaign(repo, candidates="candidate/*", parallel=workers_n, **queue)  # type: ignore[arg-type]
    wall = time.perf_counter() - started
    scored = sum(1 for row in result.rows if row.record.status == "scored")
    ideal = measurements * work_s / workers_n
    print(
        f"{label:<22} {workers_n:>2}  {wall:7.1f} s  {measurements / wall:6.2f}/s  {wall / ideal:5.2f}x  "
        f"scored {scored}/{count}  load {before} -> {load()}",
        flush=True,
    )
    return wall / ideal


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--candidates", type=int, default=40)
    parser.add_argument("--work-s", type=float, default=1.0)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    print(f"{args.candidates} candidates + baseline, evaluator {args.work_s:g} s, {os.cpu_count()} CPUs")
    print(f"{'setting':<22} {'n':>2}  {'wall':>9}  {'thruput':>8}  {'ideal':>6}")
    ratios: dict[tuple[str, int], float] = {}
    with tempfile.TemporaryDirectory(prefix="proctor-bench-dist-") as tmp, redis_server(Path(tmp)) as url:
        for n in args.workers:
            repo = make_repo(Path(tmp) / f"pool-{n}", args.candidates, args.work_s)
            ratios["pool", n] = one_run("embedded process pool", repo, args.candidates, args.work_s, n)
            repo = make_repo(Path(tmp) / f"redis-{n}", args.candidates, args.work_s)
            with workers(url, n, Path(tmp)):
                ratios["redis", n] = one_run(
                    "redis + workers", repo, args.candidates, args.work_s, n, queue=url
                )
    for n in args.workers:
        print(f"{n} worker(s): redis/pool wall-time ratio {ratios['redis', n] / ratios['pool', n]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
