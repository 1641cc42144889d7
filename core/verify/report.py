"""What `proctor verify` reports: one result per clause of the evaluator contract, and the verdict.

The clauses come in the SPEC's order (`CLAUSE_IDS`); `VerifyReport.to_json()` is the stable `"schema": 1`
document the CLI prints with `--format json`, so its keys and their meaning never change here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from core.interpreter import ProjectPython
from core.runner import SandboxChoice
from core.scoreline import Score

__all__ = ["CLAUSE_IDS", "ClauseResult", "ClauseStatus", "VerifyReport", "refused_report"]

ClauseStatus = Literal["pass", "fail", "warn", "skip"]

CLAUSE_IDS = (
    "runs",
    "metric-line",
    "result-json",
    "deterministic",
    "fast-mode",
    "fails-loudly",
    "time-budget",
    "no-stray-writes",
    "isolation",
)


@dataclass(frozen=True)
class ClauseResult:
    id: str
    status: ClauseStatus
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class VerifyReport:
    """What `proctor verify` found; `to_json()` is the stable `"schema": 1` document."""

    workspace: Path
    verdict: Literal["pass", "fail"]
    metric: Score | None
    clauses: tuple[ClauseResult, ...]
    duration_s: float
    sandbox: SandboxChoice
    command: str
    notes: tuple[str, ...] = ()
    python: ProjectPython | None = None

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def clause(self, clause_id: str) -> ClauseResult:
        for clause in self.clauses:
            if clause.id == clause_id:
                return clause
        raise KeyError(clause_id)

    def to_json(self) -> dict[str, Any]:
        metric = None if self.metric is None else {"name": self.metric.name, "value": self.metric.value}
        return {
            "schema": 1,
            "verdict": self.verdict,
            "metric": metric,
            "clauses": [clause.to_json() for clause in self.clauses],
            "duration_s": round(self.duration_s, 3),
            "interpreter": self.python.to_json() if self.python is not None else None,
        }


def refused_report(
    workspace: Path, command: str, choice: SandboxChoice, result_rel: str, started: float
) -> VerifyReport:
    """The report when a stale result.json refuses the launch (IN006), as a campaign would refuse it.

    `runs` and `result-json` fail with the reason and what to do; every other clause is skipped, so the JSON
    still says which clause failed and why.
    """
    why = (
        f"refused before running (IN006): a stale {result_rel} from an earlier run is in the workspace; "
        "a campaign would refuse to launch with it (it would be protected with the suite). Delete it and "
        "run verify again"
    )
    clauses = [ClauseResult("runs", "fail", why)]
    clauses.append(
        ClauseResult("result-json", "fail", f"stale {result_rel} present before running (IN006): delete it")
    )
    for clause_id in CLAUSE_IDS[1:]:
        if clause_id != "result-json":
            clauses.append(ClauseResult(clause_id, "skip", f"not run: stale {result_rel} refused the launch"))
    ordered = tuple(sorted(clauses, key=lambda c: CLAUSE_IDS.index(c.id)))
    return VerifyReport(workspace, "fail", None, ordered, time.monotonic() - started, choice, command)
