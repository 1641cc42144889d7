"""The table of every rule, sorted by code, built from the rule families (EV, BR, CF and the integrity IN)."""

from __future__ import annotations

from core.integrity.checks import CHECK_MODULES
from core.rules.base import DocumentKind, RuleInfo
from core.rules.brief import RULE_INFOS as _BRIEF
from core.rules.config import RULE_INFOS as _CONFIG
from core.rules.evaluator import RULE_INFOS as _EVALUATOR

# The integrity rules: identity and docs only, the guard decides (they are never run by `proctor check`).
_INTEGRITY = tuple(RuleInfo.from_module(m, frozenset({DocumentKind.CHANGE})) for m in CHECK_MODULES)

RULES: dict[str, RuleInfo] = {
    info.code: info for info in sorted((*_EVALUATOR, *_BRIEF, *_CONFIG, *_INTEGRITY), key=lambda r: r.code)
}


def get_rule(code: str) -> RuleInfo | None:
    return RULES.get(code.upper())
