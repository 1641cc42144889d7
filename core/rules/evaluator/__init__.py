"""Evaluator rules EV001-EV019 (SPEC §3.2): one module per rule, one shared analysis per document.

`lint` parses the document as cached chunks (`analysis/cutter.py`; EV001 stops there, from a whole-file parse),
builds an `EvaluatorContext` and runs every rule that applies to the document kind: rules marked * in the
SPEC table also apply to every other `.py` file of the suite.

Rules that judge one node at a time (`PER_CHUNK`) run per chunk on a `ChunkView`, together with the
per-chunk inputs of the whole-file rules (writes, random and seeding calls, clock sources, calls by
name); a chunk whose text and recorded lookups are unchanged keeps its results. Whole-file rules (the
metric print and the flow to it, seeding order, result.json) run on every lint over those cached facts.
`lint_reference` is the same analysis on one whole-file chunk: the tests hold the two equal.
"""

from __future__ import annotations

import ast
from types import ModuleType

from core.diagnostics import Diagnostic
from core.rules.base import DocumentKind, LintContext, RuleInfo
from core.rules.evaluator import (
    fast_mode_unused,
    in_process_candidate,
    labels_in_workspace,
    malformed_metric_line,
    metric,
    network_access,
    no_fast_mode,
    no_metric_line,
    no_result_json,
    output_after_metric,
    paths,
    result_json_keys,
    skipped_missing_predictions,
    stale_result_json,
    swallowed_failure,
    syntax_error,
    truncating_zip,
    unordered_iteration,
    unseeded_randomness,
    wall_clock_dependence,
    writes_suite_source,
)
from core.rules.evaluator.analysis import cutter
from core.rules.evaluator.analysis.chunk_results import ChunkResult, clear_previous
from core.rules.evaluator.analysis.tables import clear_tables
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.views import ChunkView, run_chunk_passes

__all__ = ["PER_CHUNK", "RULE_INFOS", "RULE_MODULES", "clear_caches", "lint", "lint_reference"]

RULE_MODULES: tuple[ModuleType, ...] = (
    syntax_error,
    no_metric_line,
    output_after_metric,
    malformed_metric_line,
    no_result_json,
    result_json_keys,
    no_fast_mode,
    fast_mode_unused,
    unseeded_randomness,
    wall_clock_dependence,
    network_access,
    swallowed_failure,
    unordered_iteration,
    in_process_candidate,
    labels_in_workspace,
    writes_suite_source,
    stale_result_json,
    skipped_missing_predictions,
    truncating_zip,
)

_BOTH = frozenset({DocumentKind.EVALUATOR, DocumentKind.SUITE_PYTHON})
_EVALUATOR = frozenset({DocumentKind.EVALUATOR})
_ALSO_SUITE = frozenset({"EV001", "EV009", "EV010", "EV011", "EV012", "EV013", "EV015", "EV016"})

RULE_INFOS: tuple[RuleInfo, ...] = tuple(
    RuleInfo.from_module(m, _BOTH if m.CODE in _ALSO_SUITE else _EVALUATOR) for m in RULE_MODULES
)
_CHECKERS = tuple(
    (info, module)
    for info, module in zip(RULE_INFOS, RULE_MODULES, strict=True)
    if module is not syntax_error
)


PER_CHUNK: frozenset[ModuleType] = frozenset(
    {
        fast_mode_unused,
        network_access,
        swallowed_failure,
        unordered_iteration,
        in_process_candidate,
        labels_in_workspace,
        writes_suite_source,
        skipped_missing_predictions,
    }
)
_KINDS = {info.code: info.kinds for info in RULE_INFOS}
_PER_CHUNK_ORDERED = tuple(m for m in RULE_MODULES if m in PER_CHUNK)


def lint(relpath: str, text: str, kind: DocumentKind, ctx: LintContext) -> list[Diagnostic]:
    """Every evaluator diagnostic for one Python document of the suite (noqa and select are applied by the caller)."""
    placed = cutter.parse_document(text)
    if isinstance(placed, SyntaxError | ValueError):
        return list(syntax_error.check(relpath, text, placed))
    return _run(EvaluatorContext.for_document(relpath, text, kind, ctx, placed=placed))


def lint_reference(relpath: str, text: str, kind: DocumentKind, ctx: LintContext) -> list[Diagnostic]:
    """`lint` from one whole-file parse, with no cache: what the incremental path must always equal."""
    parsed = syntax_error.parse(text)
    if isinstance(parsed, SyntaxError | ValueError):
        return list(syntax_error.check(relpath, text, parsed))
    return _run(EvaluatorContext.for_document(relpath, text, kind, ctx, parsed))


def clear_caches() -> None:
    """Forget every cached chunk and per-chunk result."""
    cutter.clear_cache()
    clear_tables()
    metric.clear_flows()
    clear_previous()


def _run(context: EvaluatorContext) -> list[Diagnostic]:
    settings = context.lint
    key = (
        context.relpath,
        context.kind,
        settings.config.evaluation_dir,
        settings.config.data_dir,
        settings.config.entry_point,
        None if settings.workspace is None else str(settings.workspace),
        settings.exists is None,
    )
    results = run_chunk_passes(context, key, _chunk_pass)
    # Most chunks have nothing to report: look only at those that do, each moved to its line once.
    reporting = [
        result.placed_diagnostics(placed.line)
        for placed, result in zip(context.placed, results, strict=True)
        if result.has_diagnostics
    ]
    found: list[Diagnostic] = []
    for info, module in _CHECKERS:
        if context.kind not in info.kinds:
            continue
        if module in PER_CHUNK:
            for by_code in reporting:
                found.extend(by_code.get(info.code, ()))
        else:
            found.extend(module.check(context))
    return found


def _chunk_pass(view: ChunkView) -> ChunkResult:
    """Everything about one chunk that the rules can decide without the rest of the document."""
    ctx = view.context
    diagnostics = {
        module.CODE: list(module.check(ctx))
        for module in _PER_CHUNK_ORDERED
        if ctx.kind in _KINDS[module.CODE]
    }
    facts: dict[str, list[object]] = {
        "writes": list(paths.writes(ctx)),
        "random": list(unseeded_randomness.random_calls(ctx)),
        "seeds": list(unseeded_randomness.seed_calls(ctx)),
        "time_sources": list(wall_clock_dependence.sources(ctx)),
    }
    calls_by_name: dict[str, list[tuple[int, ast.Call]]] = {}
    for index, (call, name) in enumerate(zip(ctx.calls, ctx.call_names, strict=True)):
        if name is not None:
            calls_by_name.setdefault(name, []).append((index, call))
    return ChunkResult(view.reads, diagnostics, facts, calls_by_name)
