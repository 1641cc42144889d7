"""Evaluator rules EV001-EV017: fixtures with inline expectations, positions, noqa, fixes, workspace rules."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from core.config import Config
from core.diagnostics import Diagnostic, TextEdit
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator import RULE_INFOS, lint
from core.rules.evaluator.context import split_lines
from core.rules.evaluator.metric import printed_metric

FIXTURES = Path(__file__).parent / "fixtures"
ENTRY = "kapso_evaluation/evaluate.py"
EXPECT = re.compile(r"#\s*error:\s*(EV\d{3}(?:\s*,\s*EV\d{3})*)")
ALL_CODES = {info.code for info in RULE_INFOS}


def expectations(text: str) -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    for number, line in enumerate(split_lines(text), start=1):
        match = EXPECT.search(line)
        if match:
            found.update((code.strip(), number) for code in match.group(1).split(","))
    return found


def run(
    text: str, relpath: str = ENTRY, kind: DocumentKind = DocumentKind.EVALUATOR, **ctx: object
) -> list[Diagnostic]:
    return lint(relpath, text, kind, LintContext(**ctx))  # type: ignore[arg-type]


def codes_lines(diagnostics: list[Diagnostic], codes: set[str]) -> set[tuple[str, int]]:
    return {(d.code, d.range.start.line + 1) for d in diagnostics if d.code in codes}


RULE_FIXTURES = sorted(p for p in FIXTURES.glob("EV0*.py"))
CLEAN_FIXTURES = sorted(FIXTURES.glob("EV_clean_*.py"))


@pytest.mark.parametrize("fixture", RULE_FIXTURES, ids=lambda p: p.stem)
def test_fixture_findings_match_inline_expectations(fixture: Path) -> None:
    text = fixture.read_text(encoding="utf-8")
    expected = expectations(text)
    code = fixture.stem[:5]
    checked = {code} | {c for c, _ in expected}
    assert codes_lines(run(text), checked) == expected


@pytest.mark.parametrize("fixture", CLEAN_FIXTURES, ids=lambda p: p.stem)
@pytest.mark.parametrize("kind", [DocumentKind.EVALUATOR, DocumentKind.SUITE_PYTHON])
def test_clean_evaluators_have_no_findings(fixture: Path, kind: DocumentKind) -> None:
    found = run(fixture.read_text(encoding="utf-8"), kind=kind)
    assert found == []


def test_every_rule_has_a_fixture() -> None:
    covered = {p.stem[:5] for p in RULE_FIXTURES}
    assert covered >= ALL_CODES - {"EV017"}  # EV017 needs a workspace: see the git tests below


# -- EV001 ---------------------------------------------------------------------------------------------------


def test_syntax_error_position_is_exact_and_stops_other_rules() -> None:
    text = 'name = "café 😀"; x = 1 +* 2\nprint("no metric")\n'
    found = run(text)
    assert [d.code for d in found] == ["EV001"]
    assert found[0].range.start.line == 0
    assert text.splitlines()[0][found[0].range.start.character] == "*"


def test_syntax_error_in_suite_helper_and_null_bytes() -> None:
    assert [d.code for d in run("def f(:\n", "kapso_evaluation/util.py", DocumentKind.SUITE_PYTHON)] == [
        "EV001"
    ]
    found = run("x = 1\x00\n")
    assert [d.code for d in found] == ["EV001"]
    assert found[0].range.start.line == 0


# -- positions -----------------------------------------------------------------------------------------------


def test_columns_are_code_points_with_accents_and_emoji() -> None:
    text = 'import os\nnoms = {"été": 1}; émoji = "😀😀"; files = os.listdir("données")\nprint(files)\n'
    found = [d for d in run(text) if d.code == "EV013"]
    assert len(found) == 1
    line = text.splitlines()[1]
    start, end = found[0].range.start.character, found[0].range.end.character
    assert line[start:end] == 'os.listdir("données")'


def test_metric_print_range_with_non_ascii_prefix() -> None:
    text = 'x = "ñ😀"; print(f"auc: {0.5:.4f}", file=__import__("sys").stderr)\n'
    metric = printed_metric('import sys\nx = "ñ😀"; print(f"auc: {0.5:.4f}")\n')
    assert metric is not None and metric.name == "auc"
    assert metric.range.start.character == len('x = "ñ😀"; ')
    assert run(text)  # still lints


# -- printed_metric ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ('auc = 1\nprint(f"auc: {auc:.4f}")\n', "auc"),
        ('x = 1\nprint("rmse:", x)\n', "rmse"),
        ('METRIC = "auc"\nv = 1\nprint(f"{METRIC}: {v}")\n', "auc"),
        ('v = 1\nprint("f1: %.3f" % v)\n', "f1"),
        ('v = 1\nprint("{}: {:.3f}".format("ndcg@10", v))\n', None),
        ('v = 1\nprint("map_at_10: {v:.3f}".format(v=v))\n', "map_at_10"),
        ('import sys\nv = 1\nsys.stdout.write(f"mae: {v}\\n")\n', "mae"),
        (
            'def main():\n    print("x", 1)\n    print(f"acc: {1}")\n\nif __name__ == "__main__":\n    main()\n',
            "acc",
        ),
        ('print(f"{name}: {value}")\n', None),
        ("print(results)\n", None),
        ("def broken(:\n", None),
    ],
)
def test_printed_metric(source: str, name: str | None) -> None:
    metric = printed_metric(source)
    assert (metric.name if metric else None) == name


def test_printed_metric_prefers_last_stdout_print_over_stderr() -> None:
    source = 'import sys\nprint(f"auc: {1}")\nprint(f"loss: {2}", file=sys.stderr)\n'
    metric = printed_metric(source)
    assert metric is not None and metric.name == "auc" and metric.range.start.line == 1


# -- noqa ----------------------------------------------------------------------------------------------------


def test_noqa_silences_the_named_code_only() -> None:
    from core.lint import lint_document

    text = (
        "import os\n"
        "import requests  # proctor: noqa: EV011\n"
        'print(os.listdir("."))  # proctor: noqa: EV011\n'
        'print(os.listdir("."))  # proctor: noqa\n'
        'print(os.listdir("."))  # Proctor: NOQA: ev013, EV009\n'
    )
    found = lint_document(ENTRY, text, DocumentKind.EVALUATOR, LintContext(), select=["EV011", "EV013"])
    assert [(d.code, d.range.start.line) for d in found] == [("EV013", 2)]


def test_select_and_ignore_prefixes() -> None:
    from core.lint import lint_document

    text = "import os\nimport requests\nprint(os.listdir('.'))\n"
    found = lint_document(
        ENTRY, text, DocumentKind.EVALUATOR, LintContext(), select=["EV01"], ignore=["EV011"]
    )
    assert {d.code for d in found} == {"EV013"}


# -- kinds ---------------------------------------------------------------------------------------------------


def test_suite_helpers_only_get_starred_rules() -> None:
    text = "import random\nimport requests\nrandom.shuffle([1])\n"
    found = {d.code for d in run(text, "kapso_evaluation/helpers.py", DocumentKind.SUITE_PYTHON)}
    assert found == {"EV009", "EV011"}
    assert {d.code for d in run(text)} >= {"EV002", "EV005", "EV007", "EV009", "EV011"}


def test_suite_dir_comes_from_config() -> None:
    config = Config(evaluation_dir="evals", data_dir="datasets")
    text = (
        "import json\nimport sys\nfrom pathlib import Path\n"
        'labels = Path("datasets/answers.csv").read_text()\n'
        'fast = "--fast" in sys.argv\n'
        'Path("evals/result.json").write_text(json.dumps({"evaluation_script_path": "evals/run.py", '
        '"evaluation_output": "auc: 1", "score": 1}))\n'
        'print("auc: 1")\n'
    )
    found = lint("evals/run.py", text, DocumentKind.EVALUATOR, LintContext(config=config))
    assert [(d.code, d.range.start.line) for d in found] == [("EV015", 3)]


# -- fixes ---------------------------------------------------------------------------------------------------


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    lines = split_lines(text)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, character: int) -> int:
        return starts[line] + character

    unique = sorted(set(edits), key=lambda e: (e.range.start, e.range.end), reverse=True)
    for edit in unique:
        a = offset(edit.range.start.line, edit.range.start.character)
        b = offset(edit.range.end.line, edit.range.end.character)
        text = text[:a] + edit.new_text + text[b:]
    return text


FIXABLE = [p for p in RULE_FIXTURES if p.stem[:5] in {"EV005", "EV006", "EV007", "EV009", "EV013"}]


@pytest.mark.parametrize("fixture", FIXABLE, ids=lambda p: p.stem)
def test_fixes_parse_and_clear_the_rule(fixture: Path) -> None:
    text = fixture.read_text(encoding="utf-8")
    code = fixture.stem[:5]
    before = [d for d in run(text) if d.code == code]
    fixable = [d for d in before if d.fix is not None]
    assert fixable, f"{fixture.name} has no fixable {code}"
    fixed = apply_edits(text, [e for d in fixable for e in d.fix.edits])  # type: ignore[union-attr]
    ast.parse(fixed)
    after = [d for d in run(fixed) if d.code == code]
    assert len(after) == len(before) - len(fixable), fixed


def test_fix_edits_are_exact() -> None:
    text = 'import os\nfor name in os.listdir("é"):\n    print(name)\n'
    (diag,) = [d for d in run(text) if d.code == "EV013"]
    assert diag.fix is not None and diag.fix.title == "Wrap in `sorted()`"
    assert (
        apply_edits(text, list(diag.fix.edits))
        == 'import os\nfor name in sorted(os.listdir("é")):\n    print(name)\n'
    )
    text = "from sklearn.ensemble import RandomForestClassifier\nm = RandomForestClassifier()\n"
    (diag,) = [d for d in run(text) if d.code == "EV009"]
    assert diag.fix is not None
    assert apply_edits(text, list(diag.fix.edits)).endswith("RandomForestClassifier(random_state=0)\n")


def test_result_writer_fix_writes_what_verify_expects() -> None:
    text = (FIXTURES / "EV005.py").read_text(encoding="utf-8")
    (diag,) = [d for d in run(text) if d.code == "EV005"]
    assert diag.fix is not None
    fixed = apply_edits(text, list(diag.fix.edits))
    assert [d.code for d in run(fixed) if d.code in ("EV003", "EV005", "EV006")] == []
    assert "import json" in fixed


def test_json_output_shape_of_a_fix() -> None:
    text = "import random\nrandom.shuffle([1, 2])\n"
    (diag,) = [d for d in run(text) if d.code == "EV009"]
    data = diag.to_json()
    assert data["line"] == 2 and data["column"] == 1
    assert data["fix"]["edits"][0]["new_text"] == "random.seed(0)\n"  # type: ignore[index]


# -- workspace rules -----------------------------------------------------------------------------------------


def _git() -> str:
    git = shutil.which("git")
    if git is None:
        if os.environ.get("CI") == "true":
            pytest.fail("git is required on CI")
        pytest.skip("git is not installed")
    return git


def _repo(tmp_path: Path, commit_result: bool) -> Path:
    git = _git()
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
    (tmp_path / "kapso_evaluation").mkdir()
    (tmp_path / ENTRY).write_text('print("auc: 1")\n')
    (tmp_path / "kapso_evaluation" / "result.json").write_text("{}")
    cmd = [git, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*cmd, "init", "-q"], cwd=tmp_path, env=env, check=True)
    subprocess.run([*cmd, "add", ENTRY], cwd=tmp_path, env=env, check=True)
    if commit_result:
        subprocess.run([*cmd, "add", "-f", "kapso_evaluation/result.json"], cwd=tmp_path, env=env, check=True)
    subprocess.run([*cmd, "commit", "-q", "-m", "suite"], cwd=tmp_path, env=env, check=True)
    return tmp_path


def test_committed_result_json_is_stale(tmp_path: Path) -> None:
    workspace = _repo(tmp_path, commit_result=True)
    found = [d for d in run('print("auc: 1")\n', workspace=workspace) if d.code == "EV017"]
    assert len(found) == 1
    assert found[0].range.start.line == 0
    assert found[0].fix is not None
    assert found[0].fix.edits == () and found[0].fix.delete_paths == ("kapso_evaluation/result.json",)


def test_untracked_result_json_in_a_repo_is_fine(tmp_path: Path) -> None:
    workspace = _repo(tmp_path, commit_result=False)
    assert [d for d in run('print("auc: 1")\n', workspace=workspace) if d.code == "EV017"] == []


def test_result_json_outside_git_counts_when_present(tmp_path: Path) -> None:
    (tmp_path / "kapso_evaluation").mkdir()
    assert [d for d in run("x = 1\n", workspace=tmp_path) if d.code == "EV017"] == []
    (tmp_path / "kapso_evaluation" / "result.json").write_text("{}")
    assert [d.code for d in run("x = 1\n", workspace=tmp_path) if d.code == "EV017"] == ["EV017"]
    assert [d for d in run("x = 1\n") if d.code == "EV017"] == []  # no workspace, no file-system rules


def test_in_process_candidate_uses_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "kapso_evaluation").mkdir()
    (tmp_path / "solution.py").write_text("def predict(x): return x\n")
    (tmp_path / "kapso_evaluation" / "metrics.py").write_text("def auc(a, b): return 1\n")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "__init__.py").write_text("")
    text = (
        "import numpy as np\n"
        "import json\n"
        "from solution import predict\n"
        "from metrics import auc\n"
        "import model.core\n"
    )
    found = [(d.code, d.range.start.line) for d in run(text, workspace=tmp_path) if d.code == "EV014"]
    assert found == [("EV014", 2), ("EV014", 4)]
    assert [d for d in run(text) if d.code == "EV014"] == []  # unknown without a workspace


def test_in_process_candidate_from_entry_point_config() -> None:
    config = Config(entry_point="solution/predict.py:main")
    text = "from predict import run\nimport solution.predict\nimport pandas\n"
    found = lint(ENTRY, text, DocumentKind.EVALUATOR, LintContext(config=config))
    assert sorted(d.range.start.line for d in found if d.code == "EV014") == [0, 1]
