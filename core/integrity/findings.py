"""Integrity findings (SPEC §4.2): IN001–IN010 reject a candidate, IN011 only flags it for a reviewer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["reject", "flag"]

TITLES = {
    "IN001": "protected file changed",
    "IN002": "protected file deleted",
    "IN003": "protected path changed type, or a symlink in or into the suite",
    "IN004": "protected file's executable bit changed",
    "IN005": "new source file in the suite",
    "IN006": "stale result.json in the baseline suite",
    "IN007": "interpreter hook on the evaluator's sys.path",
    "IN008": "git-level attack on protected paths",
    "IN009": "suite changed during the evaluation run",
    "IN010": "protected input modified, deleted or extended",
    "IN011": "candidate code patches scoring at run time",
}


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    path: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "severity": self.severity, "path": self.path, "detail": self.detail}


def reject(code: str, path: str, detail: str) -> Finding:
    return Finding(code, "reject", path, detail)


def flag(code: str, path: str, detail: str) -> Finding:
    return Finding(code, "flag", path, detail)
