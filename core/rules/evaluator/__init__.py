"""Evaluator rules (SPEC §3.2)."""

from __future__ import annotations

from core.diagnostics import Diagnostic
from core.rules.base import DocumentKind, LintContext, RuleInfo

RULE_INFOS: tuple[RuleInfo, ...] = ()


def lint(relpath: str, text: str, kind: DocumentKind, ctx: LintContext) -> list[Diagnostic]:
    return []
