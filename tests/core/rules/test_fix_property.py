"""No autofix breaks code: every fix offered on the project's whole test corpus (rule fixtures, the review
corpus' suites) and on generated evaluators gives a file that parses, uses no name before its import, no
longer has the finding it fixed, and has no new finding (the same check `--fix` makes before writing)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.diagnostics import Diagnostic
from core.fix_verify import refusal
from core.fixes import apply_edits
from core.lint import lint_document
from core.rules.base import DocumentKind, LintContext

RULES_TESTS = Path(__file__).parent
ENTRY = "kapso_evaluation/evaluate.py"
CORPUS = sorted(
    [
        *(RULES_TESTS / "fixtures").glob("*.py"),
        *(RULES_TESTS / "review").glob("*/kapso_evaluation/*.py"),
        *(RULES_TESTS / "review").glob("*/*/evaluate.py"),
    ]
)


def _lint(text: str) -> list[Diagnostic]:
    return lint_document(ENTRY, text, DocumentKind.EVALUATOR, LintContext())


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def assert_every_fix_is_sound(text: str) -> int:
    """Apply each offered fix alone; returns how many there were."""
    before = _lint(text)
    counts = Counter(d.code for d in before)
    offered = [d for d in before if d.fix is not None and d.fix.edits]
    for diagnostic in offered:
        assert diagnostic.fix is not None
        fixed = apply_edits(text, diagnostic.fix.edits)
        where = f"{diagnostic.code} at line {diagnostic.range.start.line + 1}"
        assert _parses(fixed) or not _parses(text), f"{where}: the fix breaks parsing\n{fixed}"
        reason = refusal(ENTRY, DocumentKind.EVALUATOR, text, fixed, LintContext())
        assert reason is None, f"{where}: {reason}\n{fixed}"
        after = Counter(d.code for d in _lint(fixed))
        assert after[diagnostic.code] < counts[diagnostic.code], (
            f"{where}: the finding is still there\n{fixed}"
        )
    return len(offered)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(RULES_TESTS)))
def test_every_fix_on_the_test_corpus_is_sound(path: Path) -> None:
    assert_every_fix_is_sound(path.read_text(encoding="utf-8"))


def test_the_corpus_offers_fixes_of_every_evaluator_kind() -> None:
    offered: set[str] = set()
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        if _parses(text):
            offered |= {d.code for d in _lint(text) if d.fix is not None}
    assert offered >= {"EV005", "EV006", "EV007", "EV009", "EV013", "EV019"}


IMPORTS = ["import json", "import os", "import random", "import sys", "import numpy as np", "import argparse"]
METRIC_PRINTS = [
    'print(f"accuracy: {acc:.4f}")',
    'print("accuracy: %.3f" % acc)',
    'print("accuracy:", acc)',
    'print(f"auc: {acc:.1%}")',
    'print(\n        "rmse: "\n        f"{acc:.2f}"\n    )',
    'print(f"MRR @10: {acc:.4f}")',
    'print(f"Samples: {len(labels)}")',
]
BODY_PARTS = [
    "    acc = random.random()",
    "    acc = float(np.random.rand())",
    '    for name in os.listdir("."):\n        labels.append(name)',
    '    for key in {"a", "b"}:\n        labels.append(key)',
    "    acc = sum(p == y for p, y in zip(preds, labels)) / max(len(labels), 1)",
    '    with open("kapso_evaluation/result.json", "w") as f:\n        json.dump({"score": acc}, f)',
    '    if "--fast" in sys.argv:\n        labels = labels[:2]',
    "    parser = argparse.ArgumentParser()\n    args = parser.parse_args()",
]
AFTER = ['    print("Samples: 10")', '    print("-" * 20)', "    print(f'depth: {8}')"]


@st.composite
def evaluators(draw: st.DrawFn) -> str:
    imports = draw(st.permutations(IMPORTS))[: draw(st.integers(2, len(IMPORTS)))]
    header = list(imports)
    if "import sys" in header and draw(st.booleans()):  # code between the imports
        after_sys = header.index("import sys") + 1
        header.insert(draw(st.integers(after_sys, len(header))), 'sys.path.insert(0, ".")')
    if draw(st.booleans()):
        header.insert(0, '"""A generated evaluator."""')
    body = ["    labels, preds = [], []", "    acc = 0.5"]
    body += draw(st.lists(st.sampled_from(BODY_PARTS), max_size=5, unique=True))
    body.append("    " + draw(st.sampled_from(METRIC_PRINTS)))
    body += draw(st.lists(st.sampled_from(AFTER), max_size=2, unique=True))
    main = ["def main():", *body]
    tail = ['if __name__ == "__main__":', "    main()"] if draw(st.booleans()) else ["main()"]
    return "\n".join([*header, "", "", *main, "", "", *tail]) + "\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(evaluators())
def test_every_fix_on_generated_evaluators_is_sound(text: str) -> None:
    assert_every_fix_is_sound(text)
