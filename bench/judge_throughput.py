"""Judge throughput (SPEC §11): concurrency 8 vs sequential against a loopback endpoint with 100 ms latency
(target ≥ 6×), then a re-run that must be 100 % cache hits at $0.

    .venv/bin/python bench/judge_throughput.py [--items 16] [--latency 0.1]

Exits 1 when a target is missed, so `make bench` notices.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.judge import Item, Judge, JudgeSettings, judge_outputs
from core.judge.run import JudgeRun
from tests.fakes.openai_server import FakeOpenAI, RecordedRequest, Reply, judge_answer


def answer(request: RecordedRequest) -> Reply:
    return Reply(
        content=judge_answer({"accuracy": 0.7, "completeness": 0.8, "conciseness": 0.9}, 0.8), usage=(600, 80)
    )


def serve(latency: float, conn: Connection, stop: Event) -> None:
    """The endpoint, in its own process like a real one (it must not share the judge's GIL)."""
    with FakeOpenAI(answer, latency_s=latency) as fake:
        conn.send(fake.base_url)
        stop.wait()


@contextmanager
def endpoint(latency: float) -> Iterator[str]:
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    stop = ctx.Event()
    process = ctx.Process(target=serve, args=(latency, child, stop), daemon=True)
    process.start()
    try:
        if not parent.poll(30):
            raise SystemExit("the fake endpoint did not start")
        yield str(parent.recv())
    finally:
        stop.set()
        process.join(timeout=10)


def timed(items: list[Item], settings: JudgeSettings) -> tuple[float, float, JudgeRun]:
    """Wall time and CPU per call of judging `items`; opening the client (TLS context, cache) is not timed."""
    with Judge.open(settings) as judge:
        cpu, start = time.process_time(), time.perf_counter()
        run = judge_outputs(items, judge)
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu
    return wall, cpu / max(1, len(items) * settings.samples), run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--items", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    os.environ.pop("OPENAI_API_KEY", None)
    items = [Item(f"q{i}", f"What is {i} + {i}?", f"It is {2 * i}.") for i in range(args.items)]
    with tempfile.TemporaryDirectory() as tmp, endpoint(args.latency) as base_url:
        base = JudgeSettings(model="gpt-4o-mini", base_url=base_url, budget_usd=10.0)

        def settings(concurrency: int, cache: str) -> JudgeSettings:
            return JudgeSettings(
                **{**base.__dict__, "concurrency": concurrency, "cache_path": Path(tmp) / cache}
            )

        judge_outputs(items[:1], settings(1, "warmup.sqlite"))  # imports and the first connection, untimed
        calls = args.items * base.samples
        seq_s, seq_cpu, seq = timed(items, settings(1, "sequential.sqlite"))
        par_s, par_cpu, par = timed(items, settings(args.concurrency, "concurrent.sqlite"))
        again_s, _, again = timed(items, settings(args.concurrency, "concurrent.sqlite"))

    ratio = seq_s / par_s
    hit_rate = again.cache_hits / calls
    print(
        f"judge throughput: {args.items} items x {base.samples} samples = {calls} calls, latency {args.latency * 1000:.0f} ms"
    )
    print(
        f"  sequential     {seq_s:7.3f} s  {calls / seq_s:7.1f} calls/s  spent ${seq.spent_usd:.6f}  "
        f"cpu {seq_cpu * 1000:.1f} ms/call"
    )
    print(
        f"  concurrency {args.concurrency:<2} {par_s:7.3f} s  {calls / par_s:7.1f} calls/s  spent ${par.spent_usd:.6f}  "
        f"cpu {par_cpu * 1000:.1f} ms/call"
    )
    print(f"  speed-up       {ratio:7.2f}x  (target >= 6x)")
    print(
        f"  re-run         {again_s:7.3f} s  cache hits {again.cache_hits}/{calls} ({hit_rate:.0%}), "
        f"calls {again.calls}, spent ${again.spent_usd:.6f}  (target 100 %, $0)"
    )
    print(f"  re-run vs first run: {par_s / again_s:.1f}x faster")
    ok = ratio >= 6.0 and hit_rate == 1.0 and again.spent_usd == 0.0 and again.calls == 0
    ok = ok and seq.judged == par.judged == again.judged == args.items
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
