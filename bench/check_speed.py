"""`proctor check` speed on a 1,000-line evaluator, side by side with `ruff check` on the same file.

Prints the median cold in-process lint time (caches cleared: what `proctor check` and the app pay), the whole
`proctor check` process, and `ruff check` as a process, with ratios.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _evaluator_gen import generate

from core.config import Config
from core.lint import lint_document
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator import clear_caches

RUNS = 30


def timed(fn: object, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    source = generate(1000)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        suite = ws / "kapso_evaluation"
        suite.mkdir()
        evaluator = suite / "evaluate.py"
        evaluator.write_text(source)
        ctx = LintContext(config=Config(), workspace=None)

        def lint() -> None:
            clear_caches()  # a cold lint, as `proctor check` pays it; bench/lint_incremental.py times edits
            lint_document("kapso_evaluation/evaluate.py", source, DocumentKind.EVALUATOR, ctx)

        lint()
        in_process = timed(lint, RUNS)
        proctor = [Path(sys.executable).parent / "proctor", "check", str(ws), "--format", "json"]
        whole = timed(lambda: subprocess.run(proctor, capture_output=True, check=False), 10)
        ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
        ruff_times: list[float] = []
        if ruff:
            cmd = [ruff, "check", "--no-cache", "--select", "ALL", str(evaluator)]
            ruff_times = timed(lambda: subprocess.run(cmd, capture_output=True, check=False), 10)
    lines = source.count("\n")
    med = statistics.median(in_process)
    print(f"evaluator: {lines} lines")
    print(f"proctor lint (cold), in-process median {med * 1e3:7.2f} ms  (n={RUNS})")
    print(f"proctor check, process     median {statistics.median(whole) * 1e3:7.2f} ms  (n=10)")
    if ruff_times:
        rmed = statistics.median(ruff_times)
        print(f"ruff check, process        median {rmed * 1e3:7.2f} ms  (n=10)")
        print(f"ratio in-process proctor / ruff process: {med / rmed:.2f}x")
        print(f"ratio proctor process / ruff process:    {statistics.median(whole) / rmed:.2f}x")
    else:
        print("ruff not found: install the dev extras (make install) to compare")


if __name__ == "__main__":
    main()
