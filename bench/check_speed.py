"""`proctor check` speed on a 1,000-line evaluator, side by side with `ruff check` on the same file.

Prints the median cold in-process lint time (caches cleared: what `proctor check` and the app pay), the whole
`proctor check` process (without a config file, and with a proctor.toml, which pydantic validates), and
`ruff check` as a process, with ratios. The processes run with a bytecode cache
(PYTHONPYCACHEPREFIX in a temporary directory, warmed by one run) as an installed Proctor has one: with
PYTHONDONTWRITEBYTECODE set, as on some CI machines, every run would compile Proctor's sources again. CPU
time (user + system) is printed beside wall time, since wall time on a loaded machine mostly measures the
wait for a core.
"""

from __future__ import annotations

import os
import resource
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


def timed_process(argv: list[str], runs: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system of the child) seconds per run."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=False, env=env)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


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
            lint_document(
                "kapso_evaluation/evaluate.py", source, DocumentKind.EVALUATOR, ctx, incremental=False
            )

        lint()
        in_process = timed(lint, RUNS)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(ws / ".pycache")
        proctor = [str(Path(sys.executable).parent / "proctor"), "check", str(ws), "--format", "json"]
        timed_process(proctor, 1, env)  # writes the bytecode cache
        whole, whole_cpu = timed_process(proctor, 10, env)
        # The same workspace with a proctor.toml: pydantic validates it (a workspace without one skips that).
        (ws / "proctor.toml").write_text('entry_point = "solution/predict.py"\n', encoding="utf-8")
        timed_process(proctor, 1, env)
        configured, configured_cpu = timed_process(proctor, 10, env)
        (ws / "proctor.toml").unlink()
        ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
        ruff_times: list[float] = []
        ruff_cpu: list[float] = []
        if ruff:
            cmd = [ruff, "check", "--no-cache", "--select", "ALL", str(evaluator)]
            ruff_times, ruff_cpu = timed_process(cmd, 10, env)
    lines = source.count("\n")
    med = statistics.median(in_process)
    print(f"evaluator: {lines} lines")
    print(f"proctor lint (cold), in-process median {med * 1e3:7.2f} ms  (n={RUNS})")
    print(
        f"proctor check, process     median {statistics.median(whole) * 1e3:7.2f} ms  "
        f"(cpu {statistics.median(whole_cpu) * 1e3:.0f} ms, n=10)"
    )
    print(
        f"  with a proctor.toml       median {statistics.median(configured) * 1e3:7.2f} ms  "
        f"(cpu {statistics.median(configured_cpu) * 1e3:.0f} ms, n=10)"
    )
    if ruff_times:
        rmed = statistics.median(ruff_times)
        print(
            f"ruff check, process        median {rmed * 1e3:7.2f} ms  "
            f"(cpu {statistics.median(ruff_cpu) * 1e3:.0f} ms, n=10)"
        )
        print(f"ratio in-process proctor / ruff process: {med / rmed:.2f}x")
        print(f"ratio proctor process / ruff process:    {statistics.median(whole) / rmed:.2f}x")
    else:
        print("ruff not found: install the dev extras (make install) to compare")


if __name__ == "__main__":
    main()
