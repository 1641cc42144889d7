"""The table of every rule, sorted by code, built from the rule families."""

from __future__ import annotations

from core.rules.base import RuleInfo
from core.rules.brief import RULE_INFOS as _BRIEF
from core.rules.config import RULE_INFOS as _CONFIG
from core.rules.evaluator import RULE_INFOS as _EVALUATOR

RULES: dict[str, RuleInfo] = {
    info.code: info for info in sorted((*_EVALUATOR, *_BRIEF, *_CONFIG), key=lambda r: r.code)
}


def get_rule(code: str) -> RuleInfo | None:
    return RULES.get(code.upper())
