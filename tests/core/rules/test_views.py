"""A chunk view is an evaluator context composed of one chunk's text and a store that records what it asked
the document: the recorded answers decide whether a cached per-chunk result is reused after an edit."""

from __future__ import annotations

import ast

import pytest

from core.errors import ForeignNodeError
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator.analysis import cutter
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.views import ChunkView, DocumentView

SOURCE = (
    "import numpy as np\n\n\n"
    "def draw():\n    return np.random.rand()\n\n\n"
    "def main():\n    print(f'auc: {draw():.3f}')\n"
)


def _document(text: str) -> EvaluatorContext:
    placed = cutter.parse_document(text)
    assert not isinstance(placed, SyntaxError | ValueError)
    return EvaluatorContext.for_document(
        "evaluate.py", text, DocumentKind.EVALUATOR, LintContext(), placed=placed
    )


def _call(ctx: EvaluatorContext, name: str) -> ast.Call:
    return next(c for c in ctx.calls if ctx.source_of(c.func) == name)


def test_a_chunk_view_resolves_names_through_recorded_lookups() -> None:
    document = _document(SOURCE)
    view = ChunkView(document, document.placed[1].chunk)
    call = _call(view.context, "np.random.rand")
    assert view.context.call_name(call) == "numpy.random.rand"
    assert view.context.range_of(call).start.line == 1  # relative to the chunk
    assert document.range_of(call).start.line == 4
    assert view.reads and document.reads_hold(view.reads)
    edited = _document(SOURCE.replace("import numpy as np", "import random as np"))
    assert not edited.reads_hold(view.reads)
    assert _document(SOURCE.replace("auc", "acc")).reads_hold(view.reads)


def test_a_chunk_view_does_not_place_another_chunks_node() -> None:
    document = _document(SOURCE)
    view = ChunkView(document, document.placed[1].chunk)
    foreign = _call(document, "print")
    with pytest.raises(ForeignNodeError):
        view.context.range_of(foreign)
    with pytest.raises(ForeignNodeError):
        view.context.file_range()


def test_a_document_view_records_what_the_flow_walk_reads() -> None:
    document = _document(SOURCE)
    view = DocumentView(document)
    assert view.local_function(_call(document, "draw")) is document.functions["draw"]
    assert [type(s).__name__ for s in view.flow_body()] == ["Import"]  # plain `def`s have no steps
    assert document.reads_hold(view.reads)
    assert not _document(SOURCE + "main()\n").reads_hold(view.reads)
