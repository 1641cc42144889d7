"""An edit above `main()` walks the edited statement and takes the rest of the execution-order walk from the
last lint's (`flow.Rejoin`) when the walk reaches the next statement in the same state and the lookups the
rest recorded still hold. The walk must then equal a fresh walk of the document, step for step, and an edit
that changes what the rest of the walk sees (an import it resolves, the statuses it tests, a top-level exit)
must walk it again."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator

import pytest

from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator import clear_caches, lint
from core.rules.evaluator.analysis import cutter
from core.rules.evaluator.analysis.flow import Flow
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric import discovery, flow_of

ENTRY = "kapso_evaluation/evaluate.py"
HEAD = "import sys\nimport subprocess\nimport random\n\nSEED = 1\n"
TAIL = """

def run() -> int:
    done = subprocess.run(["true"])
    print("auc: 0.5")
    return 0


def main() -> int:
    code = run()
    if code != 0:
        return 1
    value = random.random()
    print(f"accuracy: {value}")
    return 0


if __name__ == "__main__":
    main()
"""
# Top-level statements an edit puts above `main()` (replacing the line `SEED = 1` or added after it).
EDITS = (
    "SEED = 2",
    "THRESHOLD = random.random() + 1",
    "import os as subprocess",
    "import numpy as random",
    "def run() -> int:\n    return 1",
    "code = main()",
    "status = run()",
    "sys.exit(status)",
    "main = print",
    'print("auc: 1")',
    "if SEED:\n    sys.exit(1)",
    "def main() -> int:\n    return 0",
)


def _context(text: str) -> EvaluatorContext:
    placed = cutter.parse_document(text)
    assert not isinstance(placed, SyntaxError | ValueError)
    return EvaluatorContext.for_document(ENTRY, text, DocumentKind.EVALUATOR, LintContext(), placed=placed)


def _walk(flow: Flow) -> tuple[object, ...]:
    """What a rule can see of a walk, nodes by identity."""
    steps = [(id(s.call), *s[1:]) for s in flow.steps]
    boundaries = [(id(b.stmt), b.steps, b.entered, b.frames, b.statuses) for b in flow.boundaries]
    return (
        steps,
        boundaries,
        sorted(id(f) for f in flow.reached),
        sorted((id(k), v) for k, v in flow._inlined.items()),
    )


def _assert_fresh(text: str) -> Flow:
    ctx = _context(text)
    flow = flow_of(ctx)
    assert _walk(flow) == _walk(Flow(ctx)), text
    return flow


def _assert_fresh_lint(text: str) -> None:
    """The walk a whole lint keeps for the next one (the chunk passes tell it which lookups to ask again)
    is a fresh walk of the document."""
    lint(ENTRY, text, DocumentKind.EVALUATOR, LintContext())
    with discovery._FLOWS_LOCK:
        kept = discovery._FLOWS[(ENTRY, DocumentKind.EVALUATOR, LintContext().config.evaluation_dir)]
    assert _walk(kept.flow) == _walk(Flow(_context(text))), text


@pytest.fixture
def rejoined(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of steps each walk took from an earlier one."""
    taken: list[int] = []
    original = Flow._rejoined

    def counting(self: Flow, body: list[ast.stmt], index: int) -> bool:
        before = len(self.steps)
        done = original(self, body, index)
        if done:
            taken.append(len(self.steps) - before)
        return done

    monkeypatch.setattr(Flow, "_rejoined", counting)
    return taken


def test_an_edit_above_main_takes_the_rest_of_the_walk_from_the_last_lint(rejoined: list[int]) -> None:
    clear_caches()
    _assert_fresh(HEAD + TAIL)
    for number in range(5):
        _assert_fresh(HEAD.replace("SEED = 1", f"SEED = {number + 2}") + TAIL)
    assert len(rejoined) == 5 and all(rejoined), rejoined


def test_an_edit_that_changes_what_the_rest_resolves_walks_it_again(rejoined: list[int]) -> None:
    clear_caches()
    before = _assert_fresh(HEAD + TAIL)
    names = [s.name for s in before.steps]
    assert "random.random" in names and "subprocess.run" in names
    after = _assert_fresh(HEAD.replace("SEED = 1", "import numpy as random") + TAIL)
    assert "numpy.random" in [s.name for s in after.steps]
    exited = _assert_fresh(HEAD.replace("SEED = 1", "sys.exit(1)") + TAIL)
    assert len(exited.steps) == 1  # the walk ends at the top-level exit
    assert not rejoined


def _edited_texts(seed: int) -> Iterator[str]:
    """30 evaluators, each one edit (a line replaced, inserted or deleted above `main`) from the one before."""
    rng = random.Random(seed)
    lines = ["SEED = 1"]
    for _ in range(30):
        at = rng.randrange(len(lines))
        if rng.random() < 0.6:
            lines[at] = rng.choice(EDITS)
        elif len(lines) < 4:
            lines.insert(at, rng.choice(EDITS))
        else:
            del lines[at]
        yield HEAD.replace("SEED = 1", "\n".join(lines)) + TAIL


@pytest.mark.parametrize("seed", range(10))
def test_edit_sequences_above_main_equal_a_fresh_walk(seed: int, rejoined: list[int]) -> None:
    clear_caches()
    _assert_fresh(HEAD + TAIL)
    for text in _edited_texts(seed):
        _assert_fresh(text)
    assert rejoined  # the sequence took the rest of some walks from earlier ones


def test_a_status_the_rest_of_the_walk_learns_from_the_whole_body_walks_it_again() -> None:
    """`status = run()` holds an exit status only when the module body exits with `status` somewhere: an
    edit above it that adds that exit changes what the rest of the walk decides."""
    clear_caches()
    rest = 'status = run()\nif status != 0:\n    print("failed: 1")\n'
    _assert_fresh(HEAD.replace("SEED = 1", "if SEED:\n    print(SEED)") + TAIL + rest)
    exiting = _assert_fresh(HEAD.replace("SEED = 1", "if SEED:\n    raise SystemExit(status)") + TAIL + rest)
    failed = [s for s in exiting.steps if s.name == "print" and s.error_branch]
    assert len(failed) == 1  # the print under `if status != 0:` runs only after a failure


@pytest.mark.parametrize("seed", range(10))
def test_edit_sequences_linted_keep_a_fresh_walk(seed: int) -> None:
    clear_caches()
    _assert_fresh_lint(HEAD + TAIL)
    for text in _edited_texts(seed):
        _assert_fresh_lint(text)
