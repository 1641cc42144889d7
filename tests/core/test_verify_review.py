"""`proctor verify` against evaluators written by someone else: each quirk passes or fails the right clause.

Review variants beyond tests/core/test_verify.py, all through the CLI's JSON. Fixtures live in
tests/core/data/verify_review/<name>/ (the evaluator's docstring says what it does wrong, or oddly but right).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from core.verify import CLAUSE_IDS

DATA = Path(__file__).parent / "data" / "verify_review"


def _snapshot(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _verify_json(capsys: pytest.CaptureFixture[str], fixture: str) -> tuple[int, dict[str, Any]]:
    workspace = DATA / fixture
    before = _snapshot(workspace)
    code = main(["verify", str(workspace), "--format", "json"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert _snapshot(workspace) == before  # verify runs in a copy
    report: dict[str, Any] = json.loads(captured.out)
    assert [c["id"] for c in report["clauses"]] == list(CLAUSE_IDS)
    assert all(c["detail"] for c in report["clauses"])
    return code, report


def _statuses(report: dict[str, Any]) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["clauses"]}


def _detail(report: dict[str, Any], clause_id: str) -> str:
    return next(str(c["detail"]) for c in report["clauses"] if c["id"] == clause_id)


ALL_PASS = dict.fromkeys(CLAUSE_IDS, "pass")


@pytest.mark.parametrize(
    ("fixture", "metric"),
    [
        ("metric_without_newline", {"name": "accuracy", "value": 0.95}),
        ("metric_then_blank_lines", {"name": "accuracy", "value": 0.95}),
        ("percent_metric", {"name": "acc", "value": 0.85}),
        ("kapso_manifest", {"name": "accuracy", "value": 0.95}),
        ("result_json_12th_digit", {"name": "accuracy", "value": 0.95}),
        ("reads_stdin", {"name": "accuracy", "value": 0.95}),
        ("daemon_holds_stdout", {"name": "accuracy", "value": 0.95}),
        ("daemon_holds_stdout_process", {"name": "accuracy", "value": 0.95}),
    ],
)
def test_odd_but_valid_evaluators_pass_every_clause(
    capsys: pytest.CaptureFixture[str], fixture: str, metric: dict[str, Any]
) -> None:
    code, report = _verify_json(capsys, fixture)
    # The `process` level has no sandboxes: isolation warns (and says so), it never passes there.
    expected = ALL_PASS | ({"isolation": "warn"} if fixture.endswith("_process") else {})
    assert _statuses(report) == expected, report
    if fixture.endswith("_process"):
        assert "`process` level has no sandboxes" in _detail(report, "isolation")
    assert code == 0 and report["verdict"] == "pass"
    assert report["metric"]["name"] == metric["name"]
    assert report["metric"]["value"] == pytest.approx(metric["value"], rel=1e-12)


def test_stdin_is_empty_not_inherited(capsys: pytest.CaptureFixture[str]) -> None:
    _code, report = _verify_json(capsys, "reads_stdin")
    assert "accuracy = 0.95" in _detail(report, "metric-line")
    assert _statuses(report)["runs"] == "pass"


def test_kapso_manifest_line_is_the_metric(capsys: pytest.CaptureFixture[str]) -> None:
    _code, report = _verify_json(capsys, "kapso_manifest")
    assert "KAPSO_EVAL_MANIFEST" in _detail(report, "metric-line")


@pytest.mark.parametrize(
    ("fixture", "failing", "clause", "reasons"),
    [
        (
            "metric_on_stderr_only",
            {"metric-line", "fast-mode"},
            "metric-line",
            ("'evaluating...'", "'auc: 0.95' was printed on stderr, but only stdout counts"),
        ),
        ("result_json_list", {"result-json"}, "result-json", ("is not a JSON object (found list)",)),
        ("result_json_nan", {"result-json"}, "result-json", ("`score` is not a finite number", "NaN")),
        (
            "result_json_8th_digit",
            {"result-json"},
            "result-json",
            ("differs from the printed accuracy = 0.95",),
        ),
        ("fast_exits_1", {"fast-mode"}, "fast-mode", ("`--fast` failed: exit 1",)),
        (
            "sigkill_self",
            {"runs", "metric-line", "fast-mode"},
            "runs",
            ("SIGKILL", "about to die"),
        ),
        (
            "slow_full_mode",
            {"runs", "metric-line", "result-json"},
            "runs",
            ("timed out after", "the whole process group was killed"),
        ),
    ],
)
def test_broken_evaluator_fails_the_right_clause_with_a_reason(
    capsys: pytest.CaptureFixture[str], fixture: str, failing: set[str], clause: str, reasons: tuple[str, ...]
) -> None:
    code, report = _verify_json(capsys, fixture)
    statuses = _statuses(report)
    assert {cid for cid, status in statuses.items() if status == "fail"} == failing, report
    assert code == 1 and report["verdict"] == "fail"
    detail = _detail(report, clause)
    for reason in reasons:
        assert reason in detail, detail


def test_sigkill_fails_fast_mode_too_but_a_broken_candidate_still_fails_loudly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _code, report = _verify_json(capsys, "sigkill_self")
    assert "SIGKILL" in _detail(report, "fast-mode")
    assert _statuses(report)["fails-loudly"] == "pass"  # the evaluator refuses garbage before it dies
    assert report["metric"] is None


def test_slow_full_mode_keeps_fast_mode_and_warns_on_the_budget(capsys: pytest.CaptureFixture[str]) -> None:
    _code, report = _verify_json(capsys, "slow_full_mode")
    statuses = _statuses(report)
    assert statuses["fast-mode"] == "pass" and statuses["fails-loudly"] == "pass"
    assert statuses["time-budget"] == "warn"
    assert "hit the timeout (2 s)" in _detail(report, "time-budget")
    assert statuses["deterministic"] == "skip"


def test_result_json_tolerance_is_relative_1e_9(capsys: pytest.CaptureFixture[str]) -> None:
    _code, close = _verify_json(capsys, "result_json_12th_digit")
    _code, far = _verify_json(capsys, "result_json_8th_digit")
    assert "equals the printed value" in _detail(close, "result-json")
    assert _statuses(far)["result-json"] == "fail"
