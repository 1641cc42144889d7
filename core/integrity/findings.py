"""Integrity findings (SPEC §4.2): IN001–IN010 reject a candidate, IN011 only flags it for a reviewer.

Each code is a rule of `core/integrity/checks/` (its name, title and doc); the guard builds the findings. A
finding is the record the checks produce, so it sits below them: its title is `checks.rule_title(code)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.diagnostics import rule_url

# `core.diagnostics.FindingSeverity` shows the same words in the rule table.
Severity = Literal["reject", "flag"]


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    path: str
    detail: str

    @property
    def url(self) -> str:
        """The finding's rule doc (docs/rules.md), as for a diagnostic."""
        return rule_url(self.code)

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "severity": self.severity, "path": self.path, "detail": self.detail}


def reject(code: str, path: str, detail: str) -> Finding:
    return Finding(code, "reject", path, detail)


def flag(code: str, path: str, detail: str) -> Finding:
    return Finding(code, "flag", path, detail)
