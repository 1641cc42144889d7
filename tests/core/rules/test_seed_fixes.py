"""EV009's global-seed fix is worked out once per family and insertion line in a lint: every unseeded call
gets the fix for the imports above it, never another call's, and marked unsafe as the rule table says."""

from __future__ import annotations

from core.diagnostics import Applicability
from core.lint import lint_document
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator import clear_caches

SOURCE = """import random

a = random.random()
b = random.random()
import numpy as np

c = random.random()
d = np.random.rand()


def late():
    import torch
    return torch.rand(1)
"""


def test_each_unseeded_call_gets_the_seed_for_the_imports_above_it() -> None:
    clear_caches()
    found = [
        d
        for d in lint_document("kapso_evaluation/evaluate.py", SOURCE, DocumentKind.EVALUATOR, LintContext())
        if d.code == "EV009"
    ]
    fixes = {d.range.start.line: d.fix for d in found}
    assert sorted(fixes) == [2, 3, 6, 7, 12]
    placed = {
        line: [(e.range.start.line, e.new_text) for e in fix.edits] for line, fix in fixes.items() if fix
    }
    assert placed[2] == placed[3] == [(1, "random.seed(0)\n")]
    assert placed[6] == [(5, "random.seed(0)\n")]
    assert placed[7] == [(5, "np.random.seed(0)\n")]
    assert placed[12] == [(5, "import torch\n"), (5, "torch.manual_seed(0)\n")]
    assert all(fix and fix.applicability is Applicability.UNSAFE for fix in fixes.values())
