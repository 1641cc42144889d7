"""Brief rules (SPEC §3.2): BR001–BR010 over Markdown briefs (`brief` from config, and `*.brief.md`)."""

from __future__ import annotations

from core.diagnostics import Diagnostic
from core.rules.base import DocumentKind, LintContext, RuleInfo
from core.rules.brief import (
    data_not_found,
    goal_without_target,
    invisible_characters,
    metric_mismatch,
    no_data,
    no_measured_by,
    no_metric,
    no_print_format,
    no_seed,
    no_split,
)
from core.rules.brief.context import BriefContext

__all__ = ["RULE_INFOS", "RULE_MODULES", "lint"]

RULE_MODULES = (
    no_measured_by,
    no_data,
    no_split,
    no_seed,
    no_metric,
    no_print_format,
    data_not_found,
    metric_mismatch,
    goal_without_target,
    invisible_characters,
)
RULE_INFOS = tuple(RuleInfo.from_module(m, frozenset({DocumentKind.BRIEF})) for m in RULE_MODULES)


def lint(relpath: str, text: str, ctx: LintContext) -> list[Diagnostic]:
    """Every brief finding for one document (noqa and select/ignore are applied by `core.lint`)."""
    brief = BriefContext(relpath, text, ctx)
    found: list[Diagnostic] = []
    for module in RULE_MODULES:
        found.extend(module.check(brief))
    return found
