"""The document's per-chunk facts are gathered from the chunks that have any (`DocumentStore.facts`), in
document order, and from the chunk passes' current results, never an earlier list's."""

from __future__ import annotations

from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator import _chunk_pass
from core.rules.evaluator.analysis import cutter
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.unseeded_randomness import RandomCall
from core.rules.evaluator.views import run_chunk_passes

SOURCE = (
    "import random\n\n\ndef f():\n    return 1\n\n\na = random.random()\nb = f()\nc = random.randint(1, 2)\n"
)


def _document(text: str) -> EvaluatorContext:
    placed = cutter.parse_document(text)
    assert not isinstance(placed, SyntaxError | ValueError)
    return EvaluatorContext.for_document(
        "kapso_evaluation/evaluate.py", text, DocumentKind.EVALUATOR, LintContext(), placed=placed
    )


def test_facts_come_in_document_order_from_the_current_results() -> None:
    ctx = _document(SOURCE)
    assert ctx.facts("random") is None  # the chunk passes have not run
    results = run_chunk_passes(ctx, ("test", "facts"), _chunk_pass)
    found = ctx.facts("random")
    assert found is not None
    assert [f.label for f in found if isinstance(f, RandomCall)] == ["random.random", "random.randint"]
    ctx.store.chunk_results = results[:3]  # another list of results: asked again, not remembered
    again = ctx.facts("random")
    assert again is not None
    assert [f.label for f in again if isinstance(f, RandomCall)] == ["random.random"]


def test_calls_by_name_are_found_in_their_chunks_and_uncalled_names_in_none() -> None:
    ctx = _document(SOURCE)
    run_chunk_passes(ctx, ("test", "calls"), _chunk_pass)
    hits = ctx.store.calls_named("random.randint")
    assert [(number, ctx.source_of(call)) for number, _, call in hits] == [(4, "random.randint(1, 2)")]
    assert ctx.store.calls_named("atexit.register") == []
    other = _document(SOURCE + "d = zip([1], [2])\n")
    # Another list of results (here another document's): the names called are found again.
    ctx.store.chunk_results = run_chunk_passes(other, ("test", "calls"), _chunk_pass)
    assert [number for number, _, _ in ctx.store.calls_named("zip")] == [5]
