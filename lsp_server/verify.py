"""`proctor.verify` for the editor: run `core.verify` and turn failed or warned clauses into diagnostics.

The findings sit on the evaluator (the metric-line and result-json clauses on its metric print when it can
be found, the others on line 1) and stay while the evaluator's text is the one that was run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.config import Config
from core.config_view import ConfigView, evaluator_entry
from core.diagnostics import Diagnostic, Range, Severity
from core.errors import ProctorError
from core.rules.evaluator.metric import printed_metric
from core.verify import VerifyReport, verify_workspace
from lsp_server.engine import VerifyOutcome, sha

_AT_PRINT = ("metric-line", "result-json")
_SEVERITY = {"fail": Severity.ERROR, "warn": Severity.WARNING}


def run(
    workspace: Path, config: ConfigView, report: Callable[[str, int | None], None]
) -> tuple[dict[str, Any], VerifyOutcome | None]:
    """Run verify on the workspace as saved; the JSON report and the evaluator's findings. `config` is the
    workspace's (`DEFAULTS` without a config file: verify reads every key, so it gets `Config()` then)."""
    report(f"running `{config.command}`", 10)
    try:
        result = verify_workspace(workspace, config if isinstance(config, Config) else Config())
    except ProctorError as exc:
        return {"schema": 1, "verdict": "error", "error": str(exc)}, None
    report("done", 100)
    return result.to_json(), outcome_of(workspace, config, result)


def outcome_of(workspace: Path, config: ConfigView, result: VerifyReport) -> VerifyOutcome | None:
    entry = evaluator_entry(config)
    if entry is None:
        return None
    try:
        text = (workspace / entry).read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    printed = printed_metric(text)
    found = []
    for clause in result.clauses:
        severity = _SEVERITY.get(clause.status)
        if severity is None:
            continue
        where = printed.range if printed is not None and clause.id in _AT_PRINT else Range.of(0, 0, 0, 0)
        found.append(
            Diagnostic(f"verify:{clause.id}", clause.id, severity, entry, where, f"verify: {clause.detail}")
        )
    return VerifyOutcome(entry, sha(text), tuple(found))


def summary(result: dict[str, Any] | None) -> tuple[bool, str]:
    """One line for window/showMessage, and whether it is good news."""
    if not result:
        return False, "Proctor verify: no result"
    verdict = result.get("verdict")
    if verdict == "error":
        return False, f"Proctor verify could not run: {result.get('error')}"
    clauses = result.get("clauses") or []
    counts: dict[str, int] = {}
    for clause in clauses:
        counts[clause["status"]] = counts.get(clause["status"], 0) + 1
    tally = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    metric = result.get("metric")
    shown = f" — {metric['name']}: {metric['value']:g}" if metric else ""
    failed = [f"{c['id']}: {c['detail']}" for c in clauses if c["status"] == "fail"]
    tail = f"; {failed[0]}" if failed else ""
    return (
        verdict == "pass",
        f"Proctor verify: {verdict}{shown} ({tally}, {result.get('duration_s', 0):.1f} s){tail}",
    )
