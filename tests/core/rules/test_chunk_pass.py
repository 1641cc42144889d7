"""The per-chunk pass reads each chunk's nodes by type and each call's name once: what it finds, in what
order, and what it records for cache validity must be what a walk over every node would give."""

from __future__ import annotations

import ast

from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator import _chunk_pass, clear_caches, lint, lint_reference
from core.rules.evaluator.analysis import cutter
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.views import ChunkView

SOURCE = """\
import os
import sys
import numpy as np


def score(labels, preds, names):
    both = labels.merge(preds)
    seen = set(names)
    rows = list(seen)
    total = 0
    for key in labels:
        if key not in preds:
            continue
        total += 1
    for name in seen:
        print([*seen], float(name), len(os.listdir(name)), np.mean(rows))
    try:
        total = total / len(labels)
    except ZeroDivisionError:
        raise SystemExit(3)
    if total < 0:
        sys.exit(2)
    return both, total


score({}, {}, [])
"""


def _document(text: str) -> EvaluatorContext:
    placed = cutter.parse_document(text)
    assert not isinstance(placed, SyntaxError | ValueError)
    return EvaluatorContext.for_document(
        "kapso_evaluation/evaluate.py", text, DocumentKind.EVALUATOR, LintContext(), placed=placed
    )


def _view(document: EvaluatorContext, marker: str) -> ChunkView:
    chunk = next(p.chunk for p in document.placed if marker in p.chunk.text)
    return ChunkView(document, chunk)


def test_nodes_of_gives_each_kind_in_preorder_and_position_its_index() -> None:
    document = _document(SOURCE)
    for ctx in (_view(document, "def score").context, document):
        kinds = {type(node) for node in ctx.nodes}
        for kind in kinds:
            assert ctx.nodes_of(kind) == [n for n in ctx.nodes if type(n) is kind]
        grouped = ctx.nodes_of(ast.If, ast.For, ast.Call)
        assert grouped == [n for kind in (ast.If, ast.For, ast.Call) for n in ctx.nodes if type(n) is kind]
        assert ctx.nodes_of(ast.While) == []
        assert [ctx.position(n) for n in ctx.nodes] == list(range(len(ctx.nodes)))


def test_call_names_resolve_every_call_and_record_what_call_name_records() -> None:
    document = _document(SOURCE)
    shared, one_by_one = _view(document, "def score"), _view(document, "def score")
    names = shared.context.call_names
    assert names == [one_by_one.context.call_name(call) for call in one_by_one.context.calls]
    assert "numpy.mean" in names and "os.listdir" in names and "float" in names
    assert shared.reads == one_by_one.reads


def test_a_bare_name_resolved_once_still_depends_on_the_whole_file() -> None:
    """`float` is resolved once per name for every call of it: the lookups that answer stay recorded, so
    a definition of `float` elsewhere in the file invalidates the chunk's result."""
    document = _document(SOURCE)
    view = _view(document, "def score")
    assert view.context.call_names.count("float") == 1
    shadowed = _document(SOURCE + "\n\ndef float(x):\n    return x\n")
    assert not shadowed.reads_hold(view.reads)
    assert _view(shadowed, "def score").context.call_names.count("float") == 0
    assert _document(SOURCE + "\n\nVALUE = 1\n").reads_hold(view.reads)


def test_findings_of_several_kinds_keep_their_order_in_the_chunk() -> None:
    """Each rule judges its node kinds one after another; what it reports stays in pre-order (the merge
    call before the `if ...: continue`, the `raise SystemExit(3)` before `sys.exit(2)`, the `list(seen)`
    call before the loop and the `*seen`)."""
    document = _document(SOURCE)
    result = _chunk_pass(_view(document, "def score"))
    lines = {code: [d.range.start.line for d in found] for code, found in result.diagnostics.items()}
    assert lines["EV018"] == [1, 6]
    assert lines["EV012"] == [14, 16]
    assert lines["EV013"] == [3, 9, 10]


def test_a_name_stored_nowhere_has_no_value_until_an_assignment_of_it_appears() -> None:
    """`things` is assigned nowhere, so no scope index is built to learn it is no set; the lookup that
    says so is recorded, and an assignment elsewhere in the file invalidates the kept result."""
    before = "def show():\n    for item in things:\n        print(item)\n\n\nshow()\n"
    after = before + "things = {1, 2}\n"
    view = _view(_document(before), "def show")
    assert "EV013" not in {code for code, found in _chunk_pass(view).diagnostics.items() if found}
    assert "scope_index" not in vars(view.chunk)  # the cached property was never asked
    assert not _document(after).reads_hold(view.reads)
    assert _document(before + "print(1)\n").reads_hold(view.reads)
    clear_caches()
    settings = LintContext()
    relpath = "kapso_evaluation/evaluate.py"
    assert not [d for d in lint(relpath, before, DocumentKind.EVALUATOR, settings) if d.code == "EV013"]
    incremental = lint(relpath, after, DocumentKind.EVALUATOR, settings)
    assert [(d.code, d.range.start.line) for d in incremental if d.code == "EV013"] == [("EV013", 1)]
    assert incremental == lint_reference(relpath, after, DocumentKind.EVALUATOR, settings)
