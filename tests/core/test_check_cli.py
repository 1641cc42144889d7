"""`proctor check` and `proctor rule` end to end: exit codes, output formats, --fix, and bad input."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from core.check import check_paths
from core.cli import main
from core.diagnostics import Diagnostic, Fix, Range, Severity, TextEdit
from core.fixes import apply_fixes
from core.report.rules_doc import render as render_rules_doc
from core.rules.base import DocumentKind
from core.rules.registry import RULES

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[2]

COMPLETE = """# Churn

## Goal
Predict which customers churn next month, with AUC above 0.85.

Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 stratified split with seed 42,
printed as `auc: <value>`.
"""
INCOMPLETE = """# Goal
Improve the churn model.

Measured by AUC on kapso_datasets/churn.csv.
"""
SPEC_KEYS = {
    "code",
    "name",
    "severity",
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "message",
    "url",
    "fix",
}


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "kapso_datasets").mkdir(parents=True)
    (root / "kapso_datasets" / "churn.csv").write_text("id,churn\n1,0\n", encoding="utf-8")
    (root / "brief.md").write_text(COMPLETE, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_workspace_exits_0(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check")
    assert code == 0, out + err
    assert out == "All checks passed (1 file checked).\n"


def test_errors_exit_1_with_ruff_like_text(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "brief.md").write_text(INCOMPLETE, encoding="utf-8")
    code, out, _err = run(capsys, "check")
    assert code == 1
    lines = out.splitlines()
    assert (
        'brief.md:1:1: BR009 the Goal names no target: it lacks a metric and a number (e.g. "auc above 0.85")'
        in lines
    )
    # brief fixes state protocol facts: unsafe, so not marked fixable by plain --fix
    assert any(line.startswith("brief.md:4:1: BR003 the `Measured by`") for line in lines)
    assert lines[-1] == (
        "Found 4 errors, 1 warning in 1 file checked. 4 unsafe fixes available with `--unsafe-fixes`."
    )


def test_warnings_alone_exit_0(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "brief.md").write_text(COMPLETE.replace(", with AUC above 0.85", ""), encoding="utf-8")
    code, out, _err = run(capsys, "check")
    assert code == 0
    assert "BR009" in out and "Found 0 errors, 1 warning" in out


def test_json_output_has_the_spec_shape(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "brief.md").write_text(INCOMPLETE, encoding="utf-8")
    code, out, _err = run(capsys, "check", "--format", "json")
    assert code == 1
    document = json.loads(out)
    assert document["schema"] == 1
    assert set(document) == {"schema", "diagnostics"}
    found = [(d["code"], d["line"]) for d in document["diagnostics"]]
    assert found == [("BR009", 1), ("BR003", 4), ("BR004", 4), ("BR005", 4), ("BR006", 4)]
    for diagnostic in document["diagnostics"]:
        assert set(diagnostic) >= SPEC_KEYS
        assert diagnostic["severity"] in ("error", "warning", "info")
        assert diagnostic["path"] == "brief.md"
        assert diagnostic["url"].endswith("#" + diagnostic["code"].lower())
    seed = document["diagnostics"][2]
    assert seed["fix"]["title"] == "Append `seed <n>`"
    assert seed["fix"]["edits"] == [
        {
            "path": "brief.md",
            "line": 4,
            "column": 44,
            "end_line": 4,
            "end_column": 44,
            "new_text": ", <seed: the seed the evaluator uses>",
        }
    ]
    assert seed["fix"]["applicability"] == "unsafe"
    assert document["diagnostics"][0]["fix"] is None


def test_sarif_output_validates_against_the_sarif_2_1_0_schema(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (workspace / "brief.md").write_text(INCOMPLETE.replace("churn.csv", "chürn.csv"), encoding="utf-8")
    (workspace / "kapso_evaluation").mkdir()
    (workspace / "kapso_evaluation" / "evaluate.py").write_text(
        'print(f"accuracy: {0.5:.4f}")\n', encoding="utf-8"
    )
    code, out, _err = run(capsys, "check", "--format", "sarif", "--select", "BR")
    assert code == 1
    log = json.loads(out)
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    assert all(r["helpUri"].endswith("#" + r["id"].lower()) for r in rules)
    by_rule = {r["ruleId"]: r for r in run_["results"]}
    assert set(by_rule) == {"BR003", "BR004", "BR005", "BR006", "BR007", "BR008", "BR009"}
    br007 = by_rule["BR007"]
    assert br007["level"] == "warning"
    region = br007["locations"][0]["physicalLocation"]["region"]
    line = INCOMPLETE.replace("churn.csv", "chürn.csv").splitlines()[3]
    assert region["startLine"] == 4
    assert line[region["startColumn"] - 1 : region["endColumn"] - 1] == "kapso_datasets/chürn.csv"
    assert rules[br007["ruleIndex"]]["id"] == "BR007"
    related = by_rule["BR008"]["relatedLocations"][0]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "kapso_evaluation/evaluate.py"
    assert by_rule["BR004"]["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"] == {
        "text": ", <seed: the seed the evaluator uses>"
    }


def test_github_format_prints_workflow_commands(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "brief.md").write_text(INCOMPLETE, encoding="utf-8")
    code, out, _err = run(capsys, "check", "--format", "github")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == (
        "::warning file=brief.md,line=1,col=1,endLine=1,endColumn=7,title=BR009 goal-without-target::"
        'BR009 the Goal names no target: it lacks a metric and a number (e.g. "auc above 0.85")'
    )
    assert lines[1].startswith(
        "::error file=brief.md,line=4,col=1,endLine=4,endColumn=45,title=BR003 no-split::"
    )
    assert len(lines) == 5


def test_select_and_ignore(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "brief.md").write_text(INCOMPLETE, encoding="utf-8")
    _code, out, _err = run(capsys, "check", "--format", "json", "--select", "BR004,br009")
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == ["BR009", "BR004"]
    _code, out, _err = run(capsys, "check", "--format", "json", "--ignore", "BR00")
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == []
    code, out, _err = run(capsys, "check", "--select", "BR009")
    assert code == 0  # only a warning is left


def test_fix_changes_the_file_and_the_second_run_is_cleaner(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    brief = workspace / "brief.md"
    brief.write_text(INCOMPLETE, encoding="utf-8")
    before = json.loads(run(capsys, "check", "--format", "json")[1])["diagnostics"]
    assert all(d["fix"]["applicability"] == "unsafe" for d in before if d["fix"])
    code, out, _err = run(capsys, "check", "--fix")
    assert "Fixed" not in out  # brief fixes are unsafe: plain --fix leaves the brief alone
    assert brief.read_text(encoding="utf-8") == INCOMPLETE
    code, out, _err = run(capsys, "check", "--fix", "--unsafe-fixes")
    assert code == 1  # the blanks the fixes leave still fail until the author fills them
    assert "Fixed 4 issues." in out
    assert brief.read_text(encoding="utf-8").splitlines()[3] == (
        "Measured by AUC (<direction: higher or lower is better>) on kapso_datasets/churn.csv, "
        "<split: e.g. 80/20, or the file that holds the test set>, <seed: the seed the evaluator uses>, "
        "printed as `auc: <value>`."
    )
    after = json.loads(run(capsys, "check", "--format", "json")[1])["diagnostics"]
    assert [d["code"] for d in after] == ["BR009", "BR003", "BR004", "BR005"]
    assert all("blank" in d["message"] and d["fix"] is None for d in after[1:])
    code, out, _err = run(capsys, "check", "--fix", "--unsafe-fixes")
    assert "Fixed" not in out  # stable: nothing more to do


def test_fix_inserts_the_template_when_the_brief_has_no_protocol(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    brief = workspace / "task.brief.md"
    brief.write_text("# Goal\nAUC above 0.9.\n", encoding="utf-8")
    code, out, _err = run(capsys, "check", "--fix", "--unsafe-fixes", "--format", "json")
    assert brief.read_text(encoding="utf-8") == (
        "# Goal\nAUC above 0.9.\n\nMeasured by <metric> (<direction: higher or lower is better>) on "
        "kapso_datasets/, <split: e.g. 80/20, or the file that holds the test set> with "
        "<seed: the seed the evaluator uses>, printed as `<metric>: <value>`.\n"
    )
    # with no evaluator to read the metric from, the placeholders are left for the author (and still reported)
    assert code == 1
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == ["BR003", "BR004", "BR005", "BR006"]


def test_br008_across_files_with_related_information(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (workspace / "kapso_evaluation").mkdir()
    (workspace / "kapso_evaluation" / "evaluate.py").write_text(
        'import json\nacc = 0.9\nprint(f"accuracy: {acc:.4f}")\n', encoding="utf-8"
    )
    code, out, _err = run(capsys, "check", "--format", "json", "--select", "BR008")
    assert code == 1
    (diagnostic,) = json.loads(out)["diagnostics"]
    assert (diagnostic["code"], diagnostic["line"], diagnostic["column"]) == ("BR008", 7, 13)
    assert diagnostic["related"] == [
        {
            "path": "kapso_evaluation/evaluate.py",
            "line": 3,
            "column": 1,
            "message": "the evaluator prints `accuracy`",
        }
    ]


def test_paths_are_shown_relative_to_the_current_directory(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "brief.md").write_text(INCOMPLETE, encoding="utf-8")
    monkeypatch.chdir(workspace.parent)
    code, out, _err = run(capsys, "check", "ws", "--format", "github", "--select", "BR004")
    assert code == 1
    assert out.startswith("::error file=ws/brief.md,line=4,")
    code, out, _err = run(capsys, "check", "ws/brief.md", "--select", "BR004")
    assert out.startswith("ws/brief.md:4:1: BR004")


def test_explicit_files_are_classified(workspace: Path) -> None:
    (workspace / "notes.md").write_text(INCOMPLETE, encoding="utf-8")
    (workspace / "eval.py").write_text("print('auc: 1')\n", encoding="utf-8")
    (workspace / "kapso_evaluation").mkdir()
    (workspace / "kapso_evaluation" / "helper.py").write_text("x = 1\n", encoding="utf-8")
    result = check_paths(
        [Path("notes.md"), Path("eval.py"), Path("kapso_evaluation/helper.py")], workspace, select=["BR"]
    )
    kinds = {d.relpath: d.kind for d in result.documents}
    assert kinds == {
        "notes.md": DocumentKind.BRIEF,
        "eval.py": DocumentKind.EVALUATOR,
        "kapso_evaluation/helper.py": DocumentKind.SUITE_PYTHON,
    }
    assert {d.path for d in result.diagnostics} == {"notes.md"}


def test_discovery_finds_the_evaluator_suite_briefs_and_config(workspace: Path) -> None:
    suite = workspace / "kapso_evaluation"
    (suite / "lib").mkdir(parents=True)
    (suite / "evaluate.py").write_text("x = 1\n", encoding="utf-8")
    (suite / "lib" / "metrics.py").write_text("y = 2\n", encoding="utf-8")
    (suite / "__pycache__").mkdir()
    (suite / "__pycache__" / "stale.py").write_text("z = 3\n", encoding="utf-8")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "extra.brief.md").write_text(COMPLETE, encoding="utf-8")
    (workspace / ".venv").mkdir()
    (workspace / ".venv" / "hidden.brief.md").write_text("x", encoding="utf-8")
    (workspace / "proctor.toml").write_text('data_dir = "kapso_datasets"\n', encoding="utf-8")
    (workspace / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    result = check_paths((), workspace, select=["BR", "CF"])
    assert [(d.relpath, d.kind.value) for d in result.documents] == [
        ("brief.md", "brief"),
        ("docs/extra.brief.md", "brief"),
        ("kapso_evaluation/evaluate.py", "evaluator"),
        ("kapso_evaluation/lib/metrics.py", "suite-python"),
        ("proctor.toml", "config"),
    ]


def test_rule_prints_the_doc(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "rule", "br004")
    assert code == 0
    assert out.startswith("# BR004 no-seed (error, fix (unsafe): Append `seed <n>`)\n")
    for heading in ("## What it does", "## Why is this bad?", "## Example", "Use instead:", "## Fix safety"):
        assert heading in out


def test_rule_unknown_code_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rule", "XX999")
    assert code == 2
    assert out == ""
    assert err == "proctor: error: unknown rule code 'XX999' (see `proctor rule --all`)\n"
    assert run(capsys, "rule")[0] == 2


def test_rule_all_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "rule", "--all", "--format", "json")
    assert code == 0
    rules = json.loads(out)
    assert [r["code"] for r in rules] == list(RULES)
    assert {"BR001", "BR009", "CF001"} <= {r["code"] for r in rules}
    for rule in rules:
        assert {"code", "name", "severity", "fix", "doc"} <= set(rule)
    br001 = next(r for r in rules if r["code"] == "BR001")
    assert br001["fix"] == "Insert a `Measured by` template" and br001["severity"] == "error"
    code, out, _err = run(capsys, "rule", "--all")
    assert code == 0 and "BR007  data-not-found" in out


def test_docs_rules_md_is_up_to_date() -> None:
    committed = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == render_rules_doc(list(RULES.values())), (
        "docs/rules.md is stale: run `python -m core.report.rules_doc > docs/rules.md`"
    )


# Bad input: one line on stderr, exit 2, no traceback -----------------------------------------------------------


def assert_one_line_error(code: int, err: str, *fragments: str) -> None:
    assert code == 2
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("proctor: error: ")
    for fragment in fragments:
        assert fragment in err


def test_missing_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "check", str(tmp_path / "nope"))
    assert_one_line_error(code, err, "nope", "no such file or directory")


def test_bad_toml_reports_cf001_and_exits_2(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "proctor.toml").write_text("timeout_s = 600\n[campaign\nparallel = 2\n", encoding="utf-8")
    code, out, err = run(capsys, "check", "--format", "json")
    assert_one_line_error(code, err, "proctor.toml:2", "invalid TOML")
    diagnostics = json.loads(out)["diagnostics"]
    assert [(d["code"], d["path"], d["line"]) for d in diagnostics] == [("CF001", "proctor.toml", 2)]


def test_unknown_config_key_is_cf001_and_the_rest_is_linted_with_defaults(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (workspace / "proctor.toml").write_text(
        'data_dir = "kapso_datasets"\ntimeout = "600"\n', encoding="utf-8"
    )
    (workspace / "brief.md").write_text(INCOMPLETE, encoding="utf-8")
    code, out, err = run(capsys, "check", "--format", "json", "--select", "CF,BR004")
    assert_one_line_error(code, err, "timeout", "unknown key")
    assert [(d["code"], d["line"]) for d in json.loads(out)["diagnostics"]] == [("BR004", 4), ("CF001", 2)]


def test_a_bad_key_leaves_the_other_keys_in_force(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One wrong value must not make the check forget where the evaluator is (it used to lint the defaults)."""
    (workspace / "eval").mkdir()
    (workspace / "eval" / "score.py").write_text('print("accuracy: 0.5")\n', encoding="utf-8")
    (workspace / "proctor.toml").write_text(
        'command = "python eval/score.py"\nevaluation_dir = "eval"\ntimeout_s = "60"\n'
        "[campaign]\nparallel = -1\niterations = 2\n",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "check", "--format", "json")
    assert_one_line_error(code, err, "timeout_s", "valid number")
    diagnostics = json.loads(out)["diagnostics"]
    assert [d["line"] for d in diagnostics if d["code"] == "CF001"] == [3, 5]
    assert {"EV005", "EV007"} <= {d["code"] for d in diagnostics if d["path"] == "eval/score.py"}


def test_binary_file(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "kapso_evaluation").mkdir()
    (workspace / "kapso_evaluation" / "evaluate.py").write_bytes(b"\x00\x01\x02print('auc: 1')\n")
    code, out, err = run(capsys, "check")
    assert out == ""
    assert_one_line_error(code, err, "kapso_evaluation/evaluate.py", "binary")


def test_non_utf8_brief(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "brief.md").write_bytes("Measured by AUC on café".encode("latin-1"))
    code, _out, err = run(capsys, "check")
    assert_one_line_error(code, err, "brief.md", "not UTF-8")


def test_unreadable_file(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    brief = workspace / "brief.md"
    brief.chmod(0)
    try:
        readable = os.access(brief, os.R_OK)
        if readable:  # running as root: permissions do not stop us, so make the read fail the same way
            real = pathlib.Path.read_bytes

            def denied(self: Path) -> bytes:
                if self.name == "brief.md":
                    raise PermissionError(13, "Permission denied", str(self))
                return real(self)

            monkeypatch.setattr(pathlib.Path, "read_bytes", denied)
        code, _out, err = run(capsys, "check")
    finally:
        brief.chmod(0o644)
    assert_one_line_error(code, err, "brief.md", "cannot read", "Permission denied")


def test_usage_errors(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "check", "--format", "xml")
    assert_one_line_error(code, err, "--format")
    code, _out, err = run(capsys, "check", "--select", "ZZ1")
    assert_one_line_error(code, err, "--select", "ZZ1")
    (workspace / "notes.txt").write_text("hi", encoding="utf-8")
    code, _out, err = run(capsys, "check", "notes.txt")
    assert_one_line_error(code, err, "notes.txt")


def test_console_script_has_no_traceback(workspace: Path) -> None:
    (workspace / "brief.md").write_bytes(b"\x00binary")
    proc = subprocess.run(
        [sys.executable, "-m", "core", "check", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=workspace,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "proctor: error: brief.md: binary file (NUL bytes), expected UTF-8 text"


def test_fix_keeps_crlf_line_endings(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    brief = workspace / "brief.md"
    brief.write_bytes(INCOMPLETE.replace("\n", "\r\n").encode("utf-8"))
    run(capsys, "check", "--fix", "--unsafe-fixes")
    data = brief.read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert b"<seed: the seed the evaluator uses>" in data


def test_apply_fixes_deletes_files_skips_overlaps_and_stops_when_stable(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello world\n", encoding="utf-8")
    (tmp_path / "stale.json").write_text("{}", encoding="utf-8")
    calls: list[int] = []

    def lint() -> list[Diagnostic]:
        calls.append(1)
        text = (tmp_path / "a.txt").read_text(encoding="utf-8")
        found = []
        if "hello" in text:
            found.append(diag("X1", Fix("Say hi", (TextEdit("a.txt", Range.of(0, 0, 0, 5), "hi"),))))
            # overlaps X1's edit: deferred to the next pass, where it no longer applies
            found.append(diag("X2", Fix("Shout", (TextEdit("a.txt", Range.of(0, 2, 0, 8), "LLO WO"),))))
        if (tmp_path / "stale.json").exists():
            found.append(diag("X3", Fix("Delete", (), ("stale.json",))))
        # a fix that never resolves its finding is applied once, not once per pass
        found.append(diag("X4", Fix("Append", (TextEdit("a.txt", Range.of(1, 0, 1, 0), "!"),))))
        return found

    report = apply_fixes(tmp_path, lint)
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "hi world\n!"
    assert not (tmp_path / "stale.json").exists()
    assert report.deleted_paths == ("stale.json",)
    assert report.changed_paths == ("a.txt",)
    assert [d.code for d in report.fixed] == ["X1", "X3", "X4"]
    assert [d.code for d in report.remaining] == ["X4"]
    assert report.passes == 1 and len(calls) == 2


def diag(code: str, fix: Fix) -> Diagnostic:
    return Diagnostic(code, "test", Severity.ERROR, "a.txt", Range.of(0, 0, 0, 1), f"{code} found", fix)


def test_check_with_no_path_finds_the_workspace_root_upward(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "proctor.toml").write_text('brief = "brief.md"\n', encoding="utf-8")
    (workspace / "brief.md").write_text(INCOMPLETE, encoding="utf-8")
    deep = workspace / "kapso_datasets" / "nested"
    deep.mkdir()
    monkeypatch.chdir(deep)
    code, out, _err = run(capsys, "check", "--format", "json")
    assert code == 1
    paths = {d["path"] for d in json.loads(out)["diagnostics"]}
    assert paths == {"brief.md"}  # found at the root two levels up, shown relative to it


def test_check_that_checks_no_file_fails_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".git").mkdir()
    monkeypatch.chdir(empty)
    code, out, err = run(capsys, "check")
    assert code == 2
    assert out == ""
    assert err.startswith("proctor: error: no file checked in ") and err.count("\n") == 1
