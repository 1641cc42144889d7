"""The incremental lint is the cold lint: edit sequences that change the line count (Enter, deleting lines,
pasting and undoing whole functions, edits at the first and the last line, typing that breaks the syntax)
give exactly what one whole-file parse with no cache gives (`lint_reference`), on the 1,000-line benchmark
evaluator and on the rule fixtures. The parse error of a broken text is the whole-file parser's own."""

from __future__ import annotations

import ast
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.diagnostics import Diagnostic
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator import clear_caches, lint, lint_reference
from core.rules.evaluator.analysis import cutter
from core.rules.evaluator.analysis.flow import Flow
from core.rules.evaluator.metric import discovery

ENTRY = "kapso_evaluation/evaluate.py"
FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parents[3]

# Statements that change what other chunks see (imports, seeds, rebinding, metric prints, result writes).
STATEMENTS = (
    "import random",
    "import numpy as np",
    "random.seed(0)",
    "np.random.seed(1)",
    "value = random.random()",
    'path = "kapso_datasets/test_labels.csv"',
    "labels = open(path).read()",
    "sorted = list",
    "files = os.listdir('.')",
    "for name in {1, 2}:",
    'print(f"auc: {value}")',
    'print("done")',
    'RESULT = "kapso_evaluation/result.json"',
    'with open(RESULT, "w") as fh:',
    "    json.dump({'score': 1}, fh)",
    "sys.exit(1)",
    "return value",
    "global SEED",
    "import time; T = time.time()",
    "pass",
    '"""',
    "x = (",
    ")",
    "else:",
)
FUNCTION = '''def pasted_{n}(rows: list[float]) -> float:
    """A helper pasted from elsewhere."""
    import random
    total = 0.0
    for row in sorted(rows):
        total += row * random.random()
    with open("kapso_evaluation/result.json", "w") as handle:
        handle.write(str(total))
    print(f"auc: {{total}}")
    return total
'''
TYPED = "def typed(v):\n    return v + 1\n"


def benchmark_evaluator() -> str:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from _evaluator_gen import generate
    finally:
        sys.path.pop(0)
    return generate(1000)


def ordered(found: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(found, key=lambda d: (d.range.start, d.code, d.message))


def assert_equivalent(text: str, ctx: LintContext) -> None:
    incremental = ordered(lint(ENTRY, text, DocumentKind.EVALUATOR, ctx))
    # The reference walks the flow of its own tree; the next incremental lint must still find (and resume)
    # the walk of the last incremental one, as in the editor, where no reference lint runs in between.
    with discovery._FLOWS_LOCK:
        flows = dict(discovery._FLOWS)
    reference = ordered(lint_reference(ENTRY, text, DocumentKind.EVALUATOR, ctx))
    with discovery._FLOWS_LOCK:
        discovery._FLOWS.clear()
        discovery._FLOWS.update(flows)
    assert incremental == reference, text


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" "))]


@st.composite
def edits(draw: st.DrawFn, lines: list[str]) -> list[str]:
    """One edit of the kinds an editor sends, applied to `lines` (a new list)."""
    lines = list(lines)
    at = draw(st.integers(0, len(lines) - 1))
    kind = draw(
        st.sampled_from(["enter", "insert", "delete", "paste", "undo", "first", "last", "append", "type"])
    )
    if kind == "enter":  # a line split in two
        column = draw(st.integers(0, len(lines[at])))
        lines[at : at + 1] = [lines[at][:column], indent_of(lines[at]) + lines[at][column:].lstrip()]
    elif kind == "insert":
        lines.insert(at, indent_of(lines[at]) + draw(st.sampled_from(STATEMENTS)))
    elif kind == "delete" and len(lines) > 1:
        del lines[at]
    elif kind == "paste":
        top = [i for i, line in enumerate(lines) if line.startswith("def ")] or [at]
        where = draw(st.sampled_from([*top, at]))
        lines[where:where] = FUNCTION.format(n=draw(st.integers(0, 3))).split("\n")
    elif kind == "undo":  # a pasted (or any) block of lines removed in one edit
        count = draw(st.integers(1, 30))
        del lines[at : at + count]
        lines = lines or [""]
    elif kind == "first":
        lines[0:1] = draw(
            st.sampled_from([[], ["import random", lines[0]], ["x = 1"], ['"""Doc."""', lines[0]]])
        )
        lines = lines or [""]
    elif kind in ("last", "append"):
        extra = draw(st.sampled_from(STATEMENTS))
        lines = [*lines[:-1], extra] if kind == "last" else [*lines, extra]
    else:  # a prefix of a function typed character by character
        typed = TYPED[: draw(st.integers(1, len(TYPED)))]
        column = draw(st.integers(0, len(lines[at])))
        line = lines[at]
        lines[at : at + 1] = (line[:column] + typed + line[column:]).split("\n")
    return lines


def walk(text: str, steps: st.DataObject, count: int, ctx: LintContext) -> None:
    lines = text.split("\n")
    lint(ENTRY, text, DocumentKind.EVALUATOR, ctx)
    for _ in range(count):
        lines = steps.draw(edits(lines))
        assert_equivalent("\n".join(lines), ctx)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_edit_sequences_on_the_benchmark_evaluator_equal_a_cold_lint(data: st.DataObject) -> None:
    walk(benchmark_evaluator(), data, 8, LintContext())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(sorted(FIXTURES.glob("EV*.py"))))
def test_edit_sequences_on_the_fixtures_equal_a_cold_lint(data: st.DataObject, fixture: Path) -> None:
    ctx = LintContext(exists=lambda rel: rel.endswith(("solution.py", "metrics.py")))
    walk(fixture.read_text(encoding="utf-8"), data, 6, ctx)


def whole_file_error(text: str) -> tuple[object, ...] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as exc:
        return (exc.msg, exc.lineno, exc.offset, exc.end_lineno, exc.end_offset)
    return None


BREAKERS = (
    "(",
    ")",
    "[",
    '"""',
    "'",
    "def f(",
    "x = ",
    "else:",
    "\tx",
    " y",
    "if x:",
    "@dec",
    "\\",
    "f'{",
    "}",
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_parse_error_is_the_whole_file_parsers(data: st.DataObject) -> None:
    """The chunked parse finds a broken text's error from the first piece that fails (the text from there
    on), never from the whole text: the message (line numbers in it too) and the range are the same."""
    text = data.draw(
        st.sampled_from([benchmark_evaluator(), *(p.read_text() for p in FIXTURES.glob("EV00*.py"))])
    )
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        text = text[:at] + data.draw(st.sampled_from(BREAKERS)) + text[at:]
    expected = whole_file_error(text)
    if data.draw(st.booleans()):
        clear_caches()
    found = cutter.parse_document(text)
    if expected is None:
        assert isinstance(found, list)
    else:
        assert isinstance(found, SyntaxError), text
        assert (found.msg, found.lineno, found.offset, found.end_lineno, found.end_offset) == expected


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("x = 1\ny = (\n", "'(' was never closed"),
        (
            "x = 1\n" * 5 + "y = [1,\n2)\n",
            "closing parenthesis ')' does not match opening parenthesis '[' on line 6",
        ),
        ("x = 1\n" * 3 + 's = """abc\n', "unterminated triple-quoted string literal (detected at line 4)"),
    ],
)
def test_line_numbers_inside_messages_are_document_lines(before: str, after: str) -> None:
    found = cutter.parse_document(before)
    assert isinstance(found, SyntaxError) and found.msg == after


STATUS_EVALUATOR = """import sys


def run() -> int:
    print("auc: 0.5")
    return 0


def main() -> int:
    code = run()
    if code != 0:
        return 1
    print("accuracy: 0.9")
    return 0
"""
# Appended one after another, as a person types them below `main()`: statuses bound at module level, the
# exit that makes `status` a status only later, a top-level exit that ends the walk, lines after it.
APPENDED = (
    "code = main()",
    'if code != 0:\n    print("failed")',
    'print(f"auc: {code}")',
    "status = run()",
    'if status:\n    print("status: 1")',
    "sys.exit(status)",
    'print("after: 1")',
    "raise SystemExit(code)",
)


def test_lines_appended_below_main_resume_the_walk_and_equal_a_cold_lint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resumed: list[int] = []
    restore = Flow._restore

    def counting(self: Flow, earlier: Flow, keep: int) -> int:
        resumed.append(keep)
        return restore(self, earlier, keep)

    monkeypatch.setattr(Flow, "_restore", counting)
    clear_caches()
    ctx = LintContext()
    text = STATUS_EVALUATOR
    lint(ENTRY, text, DocumentKind.EVALUATOR, ctx)
    for line in APPENDED:
        text += line + "\n"
        assert_equivalent(text, ctx)
    assert len(resumed) >= 4, resumed  # most appends walked only what they added
