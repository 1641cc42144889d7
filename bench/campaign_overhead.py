"""Campaign overhead (SPEC §11): per-candidate cost around the evaluator, and parallel efficiency.

1. Per-candidate overhead with a trivial evaluator that runs a trivial candidate in a subprocess: a campaign
   of N candidates at parallel 1; for each candidate, its measured time (materialize + guard + overlay + both
   sandboxes, the stub included + re-hash) plus the parent's record step (history + checkpoint), minus the two
   interpreter start-ups the evaluator and the candidate cost anyway. Target: median ≤ 150 ms. Side by side:
   the same campaign with no `entry_point` configured, so the candidate runs inside the evaluator's sandbox
   (one sandbox per run, as before isolation): the difference is what the candidate's own sandbox costs.
2. 40 candidates at parallel 2 with an evaluator that takes a fixed time: the campaign's wall time against the
   ideal, i.e. the 41 measurements (baseline + 40) as timed at parallel 1, divided over 2 workers.
   Target: ≤ 1.05×.

    .venv/bin/python bench/campaign_overhead.py [--candidates 20] [--work-s 0.25]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _campaign_repos import commit_value_candidates

from core.campaign import CandidateRecord, run_campaign
from core.campaign.recording import Recorder


def make_repo(root: Path, candidates: int, work_s: float, *, entry_point: bool = True) -> Path:
    """A workspace whose evaluator runs solution/predict.py (which prints solution/value.txt) in a subprocess
    and prints `score: <that>` after `work_s` seconds; `entry_point` says whether the config names it."""
    (root / "kapso_evaluation").mkdir(parents=True)
    (root / "kapso_evaluation" / "evaluate.py").write_text(
        "import subprocess, sys, time\n"
        f"time.sleep({work_s})\n"
        "done = subprocess.run([sys.executable, 'solution/predict.py'], capture_output=True, text=True)\n"
        "print('score: ' + done.stdout.strip())\n"
    )
    (root / "solution").mkdir()
    (root / "solution" / "value.txt").write_text("0.5\n")
    (root / "solution" / "predict.py").write_text(
        "from pathlib import Path\nprint(Path('solution/value.txt').read_text().strip())\n"
    )
    entry = 'entry_point = "solution/predict.py"\n' if entry_point else ""
    (root / "proctor.toml").write_text(f'metric = "score"\ntimeout_s = 60\n{entry}')
    commit_value_candidates(root, candidates)
    return root


class RecordTimer:
    """Times the parent's record step (external → history → checkpoint) per candidate."""

    def __init__(self) -> None:
        self.durations: dict[int, float] = {}
        self._original = Recorder.finish

    def __enter__(self) -> RecordTimer:
        timer = self
        original = self._original

        def timed(recorder: Recorder, record: CandidateRecord) -> None:
            started = time.perf_counter()
            original(recorder, record)
            timer.durations[record.index] = time.perf_counter() - started

        Recorder.finish = timed  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *_exc: object) -> None:
        Recorder.finish = self._original  # type: ignore[method-assign]


def overhead(tmp: Path, count: int) -> None:
    # The evaluator and the candidate are two interpreter start-ups any run pays: time one, subtract two.
    starts = []
    for _ in range(7):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "print('score: 1')"], check=True, capture_output=True)
        starts.append(time.perf_counter() - started)
    startup = statistics.median(starts)
    medians = {}
    for isolated in (True, False):
        repo = make_repo(tmp / f"trivial-{isolated}", count, 0.0, entry_point=isolated)
        with RecordTimer() as timer:
            result = run_campaign(repo, campaign_id="overhead", parallel=1)
        assert all(r.status == "scored" for r in result.candidates), [r.reason for r in result.candidates]
        per_candidate = [
            r.duration_s + timer.durations.get(r.index, 0.0) - 2 * startup for r in result.candidates
        ]
        medians[isolated] = statistics.median(per_candidate)
        record = statistics.median(timer.durations.values())
        label = (
            "two sandboxes (entry_point set)" if isolated else "one sandbox (no entry_point: not isolated)"
        )
        print(
            f"{label}: per-candidate overhead (materialize + guard + sandboxes + record), trivial evaluator and "
            f"candidate, {count} candidates: median {medians[isolated] * 1000:.0f} ms"
            + (f" (target ≤ 150 ms; {medians[isolated] / 0.150:.2f}× of it)" if isolated else "")
            + f", record step median {record * 1000:.0f} ms"
        )
    print(f"sandbox: {result.sandbox}; interpreter start-up {startup * 1000:.0f} ms, excluded twice")
    extra = medians[True] - medians[False]
    print(
        f"the candidate's own sandbox (stub + candidate service + C) costs {extra * 1000:.0f} ms per candidate: "
        f"{medians[True] / medians[False]:.2f}× the single-sandbox overhead"
    )


def parallel_efficiency(tmp: Path, work_s: float) -> None:
    repo = make_repo(tmp / "parallel", 40, work_s)
    serial_started = time.perf_counter()
    serial = run_campaign(repo, campaign_id="serial", parallel=1)
    serial_wall = time.perf_counter() - serial_started
    measured = serial.baseline.duration_s + sum(r.duration_s for r in serial.candidates)
    started = time.perf_counter()
    run_campaign(repo, campaign_id="parallel", parallel=2)
    wall = time.perf_counter() - started
    ideal = measured / 2
    print(
        f"40 candidates, evaluator {work_s * 1000:.0f} ms each: parallel 2 wall {wall:.2f} s, ideal {ideal:.2f} s "
        f"(41 measurements of {measured:.2f} s at parallel 1, over 2 workers): {wall / ideal:.2f}× "
        f"(target ≤ 1.05×); parallel 1 wall {serial_wall:.2f} s, speed-up {serial_wall / wall:.2f}×"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--work-s", type=float, default=0.25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="proctor-bench-campaign-") as scratch:
        tmp = Path(scratch)
        overhead(tmp, args.candidates)
        parallel_efficiency(tmp, args.work_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
