"""Evaluator rules EV001-EV017: fixtures with inline expectations, positions, noqa, fixes, workspace rules."""

from __future__ import annotations

import ast
import os
import random
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import Config
from core.diagnostics import Diagnostic, TextEdit
from core.lines import split_lines
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator import RULE_INFOS, clear_caches, lint, lint_reference
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
    text = 'import random\nimport requests\nrandom.shuffle([1])\nrequests.get("https://x")\n'
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


# EV007.py has an argparse parser: no fix there (the option alone would only trade EV007 for EV008).
FIXABLE = [
    p
    for p in RULE_FIXTURES
    if p.stem[:5] in {"EV005", "EV006", "EV007", "EV009", "EV013", "EV019"} and p.stem != "EV007"
]


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


# -- incremental lint = cold lint = whole-file lint ----------------------------------------------------------

EDIT_PIECES = (
    "x",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    '"',
    "'",
    '"""',
    ":",
    ",",
    ".",
    "#",
    "1",
    " ",
    "    ",
    "\t",
    "\\",
    "\n",
    "\r\n",
    "\r",
    "\f",
    "\x0b",
    "\u2028",
    "é",
    "😀",
    "else:\n",
    "@dec\n",
    '"""\n',
    "import random\n",
    "random.shuffle(rows)\n",
    "print(f'auc: {auc}')\n",
    "for f in os.listdir('.'):\n    pass\n",
    "try:\n    pass\nexcept Exception:\n    pass\n",
    "sys.exit(0)\n",
    "  # proctor: noqa\n",
)


NAMES = (
    "random",
    "np",
    "numpy",
    "os",
    "sys",
    "json",
    "sorted",
    "set",
    "list",
    "print",
    "open",
    "main",
    "result",
    "RESULT",
    "fast",
    "args",
    "files",
    "labels",
    "requests",
    "time",
    "exit",
    "Path",
    "d",
    "x",
    "auc",
    "seed",
)
STRINGS = (
    '"result.json"',
    '"kapso_evaluation/result.json"',
    '"--fast"',
    '"kapso_datasets/test_labels.csv"',
    '"https://example.com/a"',
    '"w"',
    '"r"',
    '"score"',
    '"auc: 1"',
    '"evaluation_output"',
    '"x.py"',
)
STATEMENTS = (
    "import numpy as np\n",
    "import random\n",
    "from os import listdir as ld\n",
    "import requests\n",
    'RESULT = "kapso_evaluation/result.json"\n',
    "sorted = list\n",
    "files = os.listdir('.')\n",
    "files.sort()\n",
    "random.seed(0)\n",
    "np.random.seed(1)\n",
    "json = None\n",
    "d = {}\n",
    'd["score"] = 1\n',
    "d.update(evaluation_output=1)\n",
    "def main():\n    return 1\n",
    "def helper():\n    sys.exit(1)\n",
    "names = {1, 2}\n",
    "for n in names:\n    pass\n",
    'with open("kapso_evaluation/gen.py", "w") as fh:\n    fh.write("x")\n',
    "import time\nT = time.time()\n",
    "print(f'auc: {T}')\n",
    "sys.path.insert(0, 'lib')\n",
    "class Runner:\n    def run(self):\n        print(1)\n",
)
IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
STRING = re.compile(r'"[^"\n\\]*"')


def random_edit(text: str, rng: random.Random) -> str:
    """One edit of the kinds typing makes (characters, lines) or that changes what other chunks see."""
    roll = rng.random()
    at = rng.randrange(len(text) + 1)
    if roll < 0.25:
        return text[:at] + rng.choice(EDIT_PIECES) + text[at:]
    if roll < 0.4:
        return text[:at] + text[at + rng.randint(1, 4) :]
    if roll < 0.55 or roll < 0.65:
        pattern, pool = (IDENTIFIER, NAMES) if roll < 0.55 else (STRING, STRINGS)
        matches = list(pattern.finditer(text))
        if matches:
            match = rng.choice(matches)
            return text[: match.start()] + rng.choice(pool) + text[match.end() :]
    lines = text.split("\n")
    line = rng.randrange(len(lines))
    if roll < 0.8:
        lines.insert(line, rng.choice(STATEMENTS).rstrip("\n"))
    elif roll < 0.88:
        del lines[line]
    elif roll < 0.95:
        lines.insert(line, lines[rng.randrange(len(lines))])
    else:
        lines.insert(rng.randrange(len(lines) + 1), lines.pop(line))
    return "\n".join(lines)


def sorted_diagnostics(found: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(found, key=lambda d: (d.range.start, d.code))


def assert_same_as_from_scratch(
    text: str, kind: DocumentKind, ctx: LintContext, *, cold: bool = True
) -> None:
    incremental = sorted_diagnostics(lint(ENTRY, text, kind, ctx))
    reference = sorted_diagnostics(lint_reference(ENTRY, text, kind, ctx))
    assert incremental == reference, text
    if cold:
        clear_caches()
        assert sorted_diagnostics(lint(ENTRY, text, kind, ctx)) == incremental, text


def edit_walk(text: str, rng: random.Random, steps: int, parsed: list[bool]) -> Iterator[str]:
    """Random edits; an edit that breaks the syntax is linted, then the walk goes on from the last valid text."""
    for _ in range(steps):
        candidate = random_edit(text, rng)
        yield candidate
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(candidate)
        except (SyntaxError, ValueError):
            parsed.append(False)
            continue
        parsed.append(True)
        text = candidate


@pytest.mark.parametrize("seed", range(4))
def test_incremental_lint_equals_cold_lint_under_random_edits(seed: int) -> None:
    """Hundreds of edits over every fixture, including ones that break the syntax mid-typing."""
    rng = random.Random(seed)
    kinds = [DocumentKind.EVALUATOR, DocumentKind.SUITE_PYTHON]
    contexts = [LintContext(), LintContext(exists=lambda rel: rel.endswith(("solution.py", "metrics.py")))]
    parsed: list[bool] = []
    for number, fixture in enumerate(sorted(FIXTURES.glob("*.py"))[seed::4]):
        text = fixture.read_text(encoding="utf-8")
        kind, ctx = rng.choice(kinds), rng.choice(contexts)
        lint(ENTRY, text, kind, ctx)
        for step, edited in enumerate(edit_walk(text, rng, 14, parsed)):
            assert_same_as_from_scratch(edited, kind, ctx, cold=(number + step) % 3 == 0)
    assert sum(parsed) >= len(parsed) // 3  # mostly the incremental path, not just EV001


def test_incremental_lint_of_a_large_evaluator_under_random_edits() -> None:
    sys.path.insert(0, str(Path(__file__).parents[3] / "bench"))
    try:
        from _evaluator_gen import generate
    finally:
        sys.path.pop(0)
    rng = random.Random(7)
    text = generate(1000)
    ctx = LintContext()
    lint(ENTRY, text, DocumentKind.EVALUATOR, ctx)
    parsed: list[bool] = []
    for step, edited in enumerate(edit_walk(text, rng, 40, parsed)):
        assert_same_as_from_scratch(edited, DocumentKind.EVALUATOR, ctx, cold=step % 8 == 0)
    assert sum(parsed) >= len(parsed) // 3


def test_chunked_parse_is_the_whole_file_parse() -> None:
    from core.rules.evaluator.analysis import cutter

    text = (
        '"""Doc\nwith lines at column 0\n"""\nimport os\n@dec\n@other(1)\ndef f(\na=1,\n):\n    return (\n1)\n'
        "if x:\n    pass\nelse:\n    pass\ntry:\n    import y\nexcept ImportError:\n    y = None\n"
        "X = [\n    1,\n]\ns = 'a' \\\n'b'\n\fz = 1\r\nw = 2\rq = 3\n"
    )
    placed = cutter.parse_document(text)
    assert isinstance(placed, list) and len(placed) > 3
    whole = ast.parse(text)
    assert len(whole.body) == sum(len(p.chunk.body) for p in placed)
    for p in placed:
        for stmt in p.chunk.body:
            expected = whole.body.pop(0)
            shifted = ast.increment_lineno(ast.parse(ast.unparse(stmt)), 0)
            assert ast.dump(shifted) == ast.dump(ast.parse(ast.unparse(expected)))
            assert stmt.lineno + p.line == expected.lineno
            assert (stmt.end_lineno or 0) + p.line == expected.end_lineno
    broken = cutter.parse_document(text.replace("def f(", "def f(("))
    assert isinstance(broken, SyntaxError)


def test_noqa_uses_the_rules_line_numbers() -> None:
    from core.lint import lint_document

    text = 'x = 1  # form feed \f here\nimport os\nprint(os.listdir("."))  # proctor: noqa: EV013\n'
    found = lint_document(ENTRY, text, DocumentKind.EVALUATOR, LintContext(), select=["EV013"])
    assert found == []
    text = 'x = "\u2028"\x0b\nimport os\nprint(os.listdir("."))  # proctor: noqa: EV013\n'
    assert lint_document(ENTRY, text, DocumentKind.EVALUATOR, LintContext(), select=["EV013"]) == []


CROSS_CHUNK = [
    # (unchanged chunks, the chunk added in front): the added chunk changes what the others report.
    ("import os\nfiles = sorted(os.listdir('.'))\n", "sorted = list\n"),  # a builtin rebound
    ("import os\nfiles = os.listdir('.')\n", "print(files)\n"),  # a later use, not sorted
    ('import argparse\np = argparse.ArgumentParser()\np.add_argument("--fast")\n', 'x = "fast"\n'),
    ("for n in names:\n    pass\n", "names = {1, 2}\n"),  # a set, known from another chunk
    ("import sys\nsys.exit(1)\n", 'print("error: bad input")\n'),  # the reason printed before
    ("fh.write('x')\n", 'with open("kapso_evaluation/result.json", "w") as fh:\n    pass\n'),
    ("import numpy as np\nnp.random.rand(3)\n", "np.random.seed(0)\n"),
    ("def helper():\n    sys.exit(1)\ntry:\n    run()\nexcept Exception:\n    helper()\n", "import sys\n"),
    ("import os\nfor f in os.listdir('.'):\n    pass\n", "from os import listdir as os\n"),
    ("open(DATA).read()\n", 'DATA = "kapso_datasets/test_labels.csv"\n'),
    # Scoped name resolution: the binding before a module-level use, the last one seen from a function.
    ('labels = open(path).read()\npath = "/srv/holdout.csv"\n', 'path = "kapso_datasets/test_labels.csv"\n'),
    ("def gold():\n    return open(path).read()\n", 'path = "kapso_datasets/test_labels.csv"\n'),
    ('import sys\nprint("auc: 1")\nprint("done", file=out)\n', "out = sys.stdout\n"),
    ("import json\njson.dump({}, f)\n", 'f = open("kapso_evaluation/result.json", "w")\n'),
    ("def f():\n    global T\n    T = 1\nimport random\nrandom.seed(T)\n", "import time\nT = time.time()\n"),
]


@pytest.mark.parametrize(("unchanged", "added"), CROSS_CHUNK)
@pytest.mark.parametrize("where", ["before", "after"])
def test_an_edit_in_one_chunk_updates_what_other_chunks_report(
    unchanged: str, added: str, where: str
) -> None:
    ctx = LintContext()
    for kind in (DocumentKind.EVALUATOR, DocumentKind.SUITE_PYTHON):
        lint(ENTRY, unchanged, kind, ctx)
        edited = added + unchanged if where == "before" else unchanged + added
        assert_same_as_from_scratch(edited, kind, ctx)
        assert_same_as_from_scratch(unchanged, kind, ctx)


@pytest.mark.parametrize(
    "texts",
    [
        # Swapping two module-level bindings changes which one a later use sees.
        [
            'path = "kapso_datasets/test_labels.csv"\npath = "/srv/x.csv"\nx = open(path).read()\n',
            'path = "/srv/x.csv"\npath = "kapso_datasets/test_labels.csv"\nx = open(path).read()\n',
            'path = "/srv/x.csv"\nx = open(path).read()\npath = "kapso_datasets/test_labels.csv"\n',
        ],
        # A name rebound in one function, then in another, then deleted.
        [
            "import time\nimport random\ndef a():\n    s = 1\n    random.seed(s)\ndef b():\n    s = time.time()\n",
            "import time\nimport random\ndef a():\n    random.seed(s)\ndef b():\n    s = time.time()\n",
            "import time\nimport random\ns = time.time()\ndef a():\n    random.seed(s)\n",
        ],
    ],
)
def test_scoped_lookups_follow_moves_and_rebinding(texts: list[str]) -> None:
    ctx = LintContext()
    for kind in (DocumentKind.EVALUATOR, DocumentKind.SUITE_PYTHON):
        for text in [*texts, *reversed(texts)]:
            assert_same_as_from_scratch(text, kind, ctx, cold=False)


def test_names_resolve_in_their_own_function() -> None:
    """The same variable name in two functions is two variables (the review corpus's f/path/target bugs)."""
    text = (
        "import json\n"
        'RESULT = "kapso_evaluation/result.json"\n'
        "def read():\n    with open(RESULT) as f:\n        return json.load(f)\n"
        'def write(v):\n    with open(RESULT, "w") as f:\n        json.dump({"v": v}, f)\n'
    )
    assert [(d.code, d.range.start.line) for d in run(text) if d.code == "EV006"] == [("EV006", 7)]
    text = (
        "from pathlib import Path\n"
        'def a():\n    path = Path("/srv/x")\n    return path.read_text()\n'
        'def b():\n    path = Path("kapso_datasets/test_labels.csv")\n    return path.read_text()\n'
    )
    assert [(d.code, d.range.start.line) for d in run(text) if d.code == "EV015"] == [("EV015", 6)]
