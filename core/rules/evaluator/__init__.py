"""Evaluator rules EV001-EV017 (SPEC §3.2): one module per rule, one shared analysis per document.

`lint` parses once (EV001 stops there), builds an `EvaluatorContext` and runs every rule that applies to the
document kind: rules marked * in the SPEC table also apply to every other `.py` file of the suite.
"""

from __future__ import annotations

from types import ModuleType

from core.diagnostics import Diagnostic
from core.rules.base import DocumentKind, LintContext, RuleInfo
from core.rules.evaluator import (
    fast_mode_unused,
    in_process_candidate,
    labels_in_workspace,
    malformed_metric_line,
    network_access,
    no_fast_mode,
    no_metric_line,
    no_result_json,
    output_after_metric,
    result_json_keys,
    stale_result_json,
    swallowed_failure,
    syntax_error,
    unordered_iteration,
    unseeded_randomness,
    wall_clock_dependence,
    writes_suite_source,
)
from core.rules.evaluator.context import EvaluatorContext

__all__ = ["RULE_INFOS", "RULE_MODULES", "lint"]

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


def lint(relpath: str, text: str, kind: DocumentKind, ctx: LintContext) -> list[Diagnostic]:
    """Every evaluator diagnostic for one Python document of the suite (noqa and select are applied by the caller)."""
    parsed = syntax_error.parse(text)
    if isinstance(parsed, SyntaxError | ValueError):
        return list(syntax_error.check(relpath, text, parsed))
    context = EvaluatorContext(relpath, text, kind, ctx, parsed)
    found: list[Diagnostic] = []
    for info, module in _CHECKERS:
        if kind in info.kinds:
            found.extend(module.check(context))
    return found
