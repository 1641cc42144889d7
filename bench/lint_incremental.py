"""Evaluator lint latency as the editor sees it: cold, and after a one-character edit (SPEC §11).

Lints the 1,000-line evaluator from `_evaluator_gen.generate(1000)` through `core.lint.lint_document`, the
function the language server calls on every change, and prints median and p95 for:

- cold: every cache cleared before each lint (a file just opened);
- edit: one character changed somewhere in the file (a digit, so the file still parses), caches warm;
- typing: one character typed at a random place, which often breaks the syntax mid-typing (EV001 then
  comes from a whole-file parse, by design, so these are slower).

Timings are CPU time of this process (`time.process_time`), which a loaded machine disturbs least; wall
time is printed alongside. Run: `.venv/bin/python bench/lint_incremental.py [--runs N]`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _evaluator_gen import generate

from core.lint import lint_document
from core.rules.base import DocumentKind, LintContext

RELPATH = "kapso_evaluation/evaluate.py"
TYPED = "abcxyz_0123456789 .,:()[]\"'=#\n"


def _clear() -> None:
    from core.rules import evaluator

    clear = getattr(evaluator, "clear_caches", None)  # absent before the incremental engine
    if clear is not None:
        clear()


def _digit_edit(text: str, rng: random.Random) -> str:
    while True:
        at = rng.randrange(len(text))
        if text[at].isdigit():
            return text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1 :]


def _typed_edit(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text))
    return text[:at] + rng.choice(TYPED) + text[at:]


def _measure(
    texts: list[str], lint: Callable[[str], object], before: Callable[[], None] | None
) -> tuple[list[float], list[float]]:
    cpu: list[float] = []
    wall: list[float] = []
    for text in texts:
        if before is not None:
            before()
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        lint(text)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return cpu, wall


def _row(label: str, cpu: list[float], wall: list[float]) -> str:
    def p95(values: list[float]) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]

    return (
        f"{label:<34} cpu median {statistics.median(cpu) * 1e3:7.2f} ms  p95 {p95(cpu) * 1e3:7.2f} ms"
        f"   wall median {statistics.median(wall) * 1e3:7.2f} ms  p95 {p95(wall) * 1e3:7.2f} ms  (n={len(cpu)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=200, help="edits per series (cold uses a fifth)")
    args = parser.parse_args()
    source = generate(1000)
    ctx = LintContext()

    def lint(text: str) -> object:
        return lint_document(RELPATH, text, DocumentKind.EVALUATOR, ctx)

    rng = random.Random(42)
    print(f"evaluator: {source.count(chr(10))} lines, {len(source)} characters")
    cold = _measure([source] * max(5, args.runs // 5), lint, _clear)
    print(_row("cold (caches cleared)", *cold))

    edits: list[str] = []
    text = source
    for _ in range(args.runs):
        text = _digit_edit(text, rng)
        edits.append(text)
    _clear()
    lint(source)
    print(_row("after a one-character edit", *_measure(edits, lint, None)))

    typed = [_typed_edit(source, rng) for _ in range(args.runs)]
    lint(source)
    print(_row("typing (may break the syntax)", *_measure(typed, lint, lambda: lint(source))))


if __name__ == "__main__":
    main()
