"""`proctor verify` end to end: broken evaluators fail the right clause, with a reason, via the CLI's JSON."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from core.verify import CLAUSE_IDS, is_source_file

DATA = Path(__file__).parent / "data" / "verify"
CHURN = Path(__file__).parents[2] / "examples" / "churn"


def _snapshot(root: Path) -> dict[str, str]:
    """Every file under root (including ignored ones) with its hash: verify must leave all of it alone."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["verify", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _verify_json(
    capsys: pytest.CaptureFixture[str], workspace: Path, *args: str
) -> tuple[int, dict[str, Any]]:
    code, out, err = _verify(capsys, str(workspace), "--format", "json", *args)
    assert "Traceback" not in err
    return code, json.loads(out)


def _clauses(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {clause["id"]: clause for clause in report["clauses"]}


def test_good_evaluator_passes_every_clause(capsys: pytest.CaptureFixture[str]) -> None:
    before = _snapshot(DATA / "good")
    code, report = _verify_json(capsys, DATA / "good")
    assert code == 0
    assert set(report) == {"schema", "verdict", "metric", "clauses", "duration_s", "interpreter"}
    assert report["schema"] == 1 and report["verdict"] == "pass"
    assert report["metric"] == {"name": "accuracy", "value": 0.95}
    assert [c["id"] for c in report["clauses"]] == list(CLAUSE_IDS)
    assert all(set(c) == {"id", "status", "detail"} and c["detail"] for c in report["clauses"])
    assert {c["status"] for c in report["clauses"]} == {"pass"}
    assert isinstance(report["duration_s"], float) and report["duration_s"] > 0
    assert _snapshot(DATA / "good") == before


@pytest.mark.parametrize(
    ("fixture", "clause", "status", "reason", "exit_code"),
    [
        ("no_metric_line", "metric-line", "fail", "not a metric line", 1),
        ("output_after_metric", "metric-line", "fail", "nothing may be printed after it", 1),
        ("nondeterministic", "deterministic", "fail", "> tolerance 0", 1),
        ("no_fast", "fast-mode", "fail", "unrecognized arguments: --fast", 1),
        ("exits_zero_on_broken", "fails-loudly", "fail", "exited 0 and printed 'accuracy: 0.0'", 1),
        ("stale_result_json", "runs", "fail", "IN006", 1),
        ("stale_result_json", "result-json", "fail", "stale kapso_evaluation/result.json", 1),
        (
            "writes_into_suite",
            "no-stray-writes",
            "fail",
            "new source file: kapso_evaluation/generated_helper.py",
            1,
        ),
        ("too_slow", "time-budget", "warn", "over fast_budget_s = 0.001 s", 0),
        ("score_mismatch", "result-json", "fail", "differs from the printed accuracy = 0.95", 1),
        ("no_entry_point", "fails-loudly", "skip", "no entry_point configured", 0),
    ],
)
def test_broken_evaluator_fails_the_right_clause(
    capsys: pytest.CaptureFixture[str], fixture: str, clause: str, status: str, reason: str, exit_code: int
) -> None:
    workspace = DATA / fixture
    before = _snapshot(workspace)
    code, report = _verify_json(capsys, workspace)
    found = _clauses(report)[clause]
    assert found["status"] == status, found
    assert reason in found["detail"]
    assert code == exit_code
    assert report["verdict"] == ("fail" if exit_code else "pass")
    assert _snapshot(workspace) == before  # verify ran in a copy


def test_stale_result_json_is_refused_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _verify_json(capsys, DATA / "stale_result_json")
    clauses = _clauses(report)
    assert code == 1 and report["metric"] is None
    assert "Delete it" in clauses["runs"]["detail"]
    assert [c["id"] for c in report["clauses"]] == list(CLAUSE_IDS)
    for clause_id in CLAUSE_IDS:
        if clause_id not in ("runs", "result-json"):
            assert clauses[clause_id]["status"] == "skip"


def test_only_the_broken_clause_fails_for_a_missing_fast_mode(capsys: pytest.CaptureFixture[str]) -> None:
    _code, report = _verify_json(capsys, DATA / "no_fast")
    assert {c["id"] for c in report["clauses"] if c["status"] != "pass"} == {"fast-mode"}


def test_runs_1_skips_the_determinism_clause(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _verify_json(capsys, DATA / "nondeterministic", "--runs", "1")
    deterministic = _clauses(report)["deterministic"]
    assert (code, deterministic["status"]) == (0, "skip")
    assert "--runs 1" in deterministic["detail"]


def test_text_report_names_each_clause_and_the_sandbox(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = _verify(capsys, str(DATA / "no_fast"))
    assert code == 1
    assert "sandbox:" in out
    for clause_id in CLAUSE_IDS:
        assert clause_id in out
    assert "FAIL  fast-mode" in out
    assert out.rstrip().splitlines()[-1].startswith("verdict: fail (fast-mode)")


def test_planted_pycache_in_the_suite_is_removed_in_the_copy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(DATA / "good", workspace)
    planted = workspace / "kapso_evaluation" / "__pycache__" / "evaluate.cpython-311.pyc"
    planted.parent.mkdir()
    planted.write_bytes(b"not bytecode")
    code, report = _verify_json(capsys, workspace)
    assert code == 0, report
    assert planted.read_bytes() == b"not bytecode"  # the user's files are untouched


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "/definitely/not/a/workspace"],
        ["verify", str(DATA / "bad_config")],
        ["verify", str(DATA / "good"), "--runs", "0"],
        ["verify", str(DATA / "good"), "--format", "xml"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    code = main(args)
    captured = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in captured.err and captured.out == ""
    assert captured.err.strip()


def test_bad_config_names_file_line_and_key(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _verify(capsys, str(DATA / "bad_config"))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert "proctor.toml:2" in lines[0] and "timeout_s" in lines[0]


def test_missing_workspace_message(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _verify(capsys, "/definitely/not/a/workspace")
    assert code == 2
    assert err.strip().splitlines() == [
        "proctor: error: workspace '/definitely/not/a/workspace' does not exist or is not a directory"
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("metric.py", True),
        ("METRIC.PY", True),
        ("metric.py. ", True),
        ("hook.pth", True),
        ("config.YAML", True),
        ("predictions.csv", False),
        ("log.txt", False),
    ],
)
def test_source_files_follow_in005(tmp_path: Path, name: str, expected: bool) -> None:
    path = tmp_path / name
    path.write_text("x = 1\n", encoding="utf-8")
    assert is_source_file(path) is expected


def test_shebang_executable_and_bytecode_count_as_source(tmp_path: Path) -> None:
    script = tmp_path / "run"
    script.write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    executable = tmp_path / "tool.bin"
    executable.write_bytes(b"\x7fELF")
    executable.chmod(0o755)
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    planted = cache / "anything.dat"
    planted.write_bytes(b"x")
    assert is_source_file(script) and is_source_file(executable) and is_source_file(planted)


# --------------------------------------------------------------------------------------------- examples/churn


def test_churn_example_passes_every_clause(capsys: pytest.CaptureFixture[str]) -> None:
    before = _snapshot(CHURN)
    code, report = _verify_json(capsys, CHURN)
    assert code == 0, report
    assert {c["id"]: c["status"] for c in report["clauses"]} == dict.fromkeys(CLAUSE_IDS, "pass")
    assert report["metric"]["name"] == "auc"
    assert 0.8 < report["metric"]["value"] < 0.95
    assert "garbage entry point fails the run" in _clauses(report)["fails-loudly"]["detail"]
    assert _snapshot(CHURN) == before


def test_churn_console_script_exit_code(tmp_path: Path) -> None:
    proctor = Path(sys.executable).parent / "proctor"
    if not proctor.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the console script {proctor} is not installed")
        pytest.skip(f"console script {proctor} is not installed")
    done = subprocess.run(
        [str(proctor), "verify", str(CHURN), "--runs", "1"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict: pass" in done.stdout


def test_churn_dataset_is_reproducible_from_its_script(tmp_path: Path) -> None:
    out = tmp_path / "churn.csv"
    subprocess.run(
        [sys.executable, str(CHURN / "make_data.py"), "--out", str(out)], check=True, capture_output=True
    )
    assert out.read_bytes() == (CHURN / "kapso_datasets" / "churn.csv").read_bytes()
    assert len(out.read_bytes()) < 300 * 1024
    labels = tmp_path / "churn_labels.csv"
    assert labels.read_bytes() == (CHURN.parent / "churn-holdout" / "churn_labels.csv").read_bytes()
    # The workspace holds no test label: every held-out row's `churned` is empty there.
    assert len(labels.read_text().splitlines()) == 601
    assert sum(line.endswith(",") for line in out.read_text().splitlines()) == 600


def test_churn_result_json_per_item_scores_average_to_the_score(tmp_path: Path) -> None:
    workspace = tmp_path / "churn"
    shutil.copytree(CHURN, workspace)
    done = subprocess.run(
        [sys.executable, "kapso_evaluation/evaluate.py", "--fast"],
        cwd=workspace,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PROCTOR_HOLDOUT_DIR": str(CHURN.parent / "churn-holdout")},
    )
    result = json.loads((workspace / "kapso_evaluation" / "result.json").read_text(encoding="utf-8"))
    assert done.stdout.strip() == f"auc: {result['score']:.4f}"
    assert result["fidelity"] == "fast" and len(result["per_item_scores"]) == result["n_test"] == 300
    mean = sum(result["per_item_scores"]) / len(result["per_item_scores"])
    assert abs(mean - result["score"]) < 1e-4


@pytest.mark.parametrize("entry_point", ["../outside.py", "/tmp/outside.py", "link/outside.py"])
def test_entry_point_outside_the_workspace_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, entry_point: str
) -> None:
    """fails-loudly replaces the entry point: it must never be able to touch a file outside the copy."""
    workspace = tmp_path / "ws"
    shutil.copytree(DATA / "good", workspace)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "outside.py").write_text("print(0.7)\n", encoding="utf-8")
    (workspace / "link").symlink_to(outside, target_is_directory=True)
    config = workspace / "proctor.toml"
    config.write_text(f'command = "python kapso_evaluation/evaluate.py"\nentry_point = "{entry_point}"\n')
    code, out, err = _verify(capsys, str(workspace))
    assert code == 2 and out == ""
    assert "`entry_point`" in err and "workspace" in err and len(err.strip().splitlines()) == 1
    assert (outside / "outside.py").read_text(encoding="utf-8") == "print(0.7)\n"
