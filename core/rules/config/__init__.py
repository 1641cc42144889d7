"""Config rules: CF001."""

from __future__ import annotations

from core.diagnostics import Diagnostic
from core.rules.base import DocumentKind, LintContext, RuleInfo
from core.rules.config import invalid_config

RULE_MODULES = (invalid_config,)
RULE_INFOS = tuple(RuleInfo.from_module(m, frozenset({DocumentKind.CONFIG})) for m in RULE_MODULES)


def lint(relpath: str, text: str, ctx: LintContext) -> list[Diagnostic]:
    return list(invalid_config.check(relpath, text))
