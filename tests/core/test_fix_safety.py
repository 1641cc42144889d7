"""Autofix safety end to end: `--fix` applies safe fixes only, `--unsafe-fixes` the others, and a fix that
would break the file (does not parse, a name used before its import, a new finding) is refused and reported."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from core.cli import main
from core.diagnostics import Diagnostic, Fix, Range, Severity, TextEdit
from core.fix_verify import names_used_before_import, refusal
from core.fixes import apply_fixes
from core.rules.base import DocumentKind, LintContext
from core.rules.registry import RULES

EVALUATOR = '''"""Eval."""
import json
import sys

sys.path.insert(0, ".")
import numpy as np


def main():
    preds = np.random.rand(10)
    accuracy = float(preds.mean())
    with open("kapso_evaluation/result.json", "w") as f:
        json.dump({"evaluation_script_path": __file__, "evaluation_output": "", "score": accuracy}, f)
    if "--fast" in sys.argv:
        preds = preds[:2]
    print(f"accuracy: {accuracy:.4f}")


if __name__ == "__main__":
    main()
'''


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "kapso_evaluation").mkdir()
    (tmp_path / "kapso_evaluation" / "evaluate.py").write_text(EVALUATOR, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_fix_is_classified_in_the_rule_table_and_in_proctor_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for info in RULES.values():
        assert (info.fix_safety is None) == (info.fix_title is None), info.code
        if info.fix_safety is not None:
            section = info.doc.split("## Fix safety", 1)[1].split("\n## ", 1)[0]
            assert section.strip().lower().startswith(info.fix_safety.value), info.code
    code, out, _err = _run(capsys, "rule", "EV009")
    assert code == 0 and out.startswith("# EV009 unseeded-randomness (error, fix (unsafe): ")
    assert "## Fix safety\nUnsafe:" in out


def test_fix_applies_safe_fixes_only_and_unsafe_fixes_the_others(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evaluator = workspace / "kapso_evaluation" / "evaluate.py"
    code, out, _err = _run(capsys, "check", "--format", "json")
    (seed,) = [d for d in json.loads(out)["diagnostics"] if d["code"] == "EV009"]
    assert seed["fix"]["applicability"] == "unsafe"

    code, out, _err = _run(capsys, "check", "--fix")
    assert code == 1 and "Fixed" not in out
    assert evaluator.read_text(encoding="utf-8") == EVALUATOR

    code, out, err = _run(capsys, "check", "--fix", "--unsafe-fixes")
    assert code == 0, out + err
    fixed = evaluator.read_text(encoding="utf-8")
    lines = fixed.splitlines()
    # the seed goes after the file's own `import numpy as np`, not above it
    assert lines.index("np.random.seed(0)") == lines.index("import numpy as np") + 1
    assert names_used_before_import(ast.parse(fixed)) == set()


def _context() -> LintContext:
    return LintContext()


def test_refusal_names_what_a_fix_would_break() -> None:
    ok = 'import sys\nprint(f"accuracy: {0.5:.4f}")\n'
    kind = DocumentKind.SUITE_PYTHON
    assert refusal("s.py", kind, ok, ok + "x = (\n", _context()) == (
        "the result would not parse (line 3: '(' was never closed)"
    )
    assert refusal("s.py", kind, ok, "np.random.seed(0)\nimport numpy as np\n" + ok, _context()) == (
        "`np` would be used before its import"
    )
    new_finding = ok + "import random\nrandom.random()\n"
    assert refusal("s.py", kind, ok, new_finding, _context()) == "the result would add EV009"
    assert refusal("s.py", kind, ok, ok + "\n", _context()) is None


def test_a_refused_fix_is_not_written_and_is_reported(tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    target.write_text("x = 1\n", encoding="utf-8")
    broken = Diagnostic(
        "EV005",
        "no-result-json",
        Severity.ERROR,
        "a.py",
        Range.of(0, 0, 0, 0),
        "nothing writes result.json",
        Fix("Break it", (TextEdit("a.py", Range.of(0, 0, 0, 0), "def (\n"),)),
    )
    report = apply_fixes(
        tmp_path,
        lambda: [broken],
        verify=lambda relpath, before, after: refusal(
            relpath, DocumentKind.SUITE_PYTHON, before, after, _context()
        ),
    )
    assert target.read_text(encoding="utf-8") == "x = 1\n"
    assert report.count == 0
    assert [r.reason for r in report.refused] == ["the result would not parse (line 1: invalid syntax)"]
