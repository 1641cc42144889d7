"""BR001–BR009: each fires where it should, stays quiet on a complete brief, and its fix round-trips."""

from __future__ import annotations

import re
from collections.abc import Mapping

import pytest

from core.brief import parse_brief
from core.config import Config
from core.diagnostics import Diagnostic, Severity
from core.fixes import apply_edits
from core.lint import lint_document
from core.rules.base import DocumentKind, LintContext
from core.rules.brief import RULE_INFOS, RULE_MODULES
from core.rules.registry import get_rule

EVALUATOR = "kapso_evaluation/evaluate.py"
EVALUATOR_SOURCE = """import json
import sys

auc = 0.8412
print(f"auc: {auc:.4f}")
"""
WORKSPACE = {
    EVALUATOR: EVALUATOR_SOURCE,
    "kapso_datasets": "",
    "kapso_datasets/churn.csv": "id,churn\n1,0\n",
}
COMPLETE = """# Churn

## Goal
Predict which customers churn next month, with AUC above 0.85.

Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 stratified split with seed 42,
printed as `auc: <value>`.

## Data
`kapso_datasets/churn.csv`: one row per customer; the label is `churn`.
"""
MEASURED_LINE = 5


def context(files: Mapping[str, str] = WORKSPACE, config: Config | None = None) -> LintContext:
    return LintContext(
        config=config or Config(), workspace=None, read_file=files.get, exists=lambda path: path in files
    )


def lint(text: str, files: Mapping[str, str] = WORKSPACE, config: Config | None = None) -> list[Diagnostic]:
    return lint_document("brief.md", text, DocumentKind.BRIEF, context(files, config))


def found(text: str, files: Mapping[str, str] = WORKSPACE) -> list[tuple[str, int]]:
    """(code, 1-based line) pairs, as `proctor check --format json` reports them."""
    return [(d.code, d.range.start.line + 1) for d in lint(text, files)]


def fix_once(text: str, code: str, files: Mapping[str, str] = WORKSPACE) -> str:
    (diagnostic,) = [d for d in lint(text, files) if d.code == code]
    assert diagnostic.fix is not None
    return apply_edits(text, diagnostic.fix.edits)


def test_the_rule_table_matches_the_spec() -> None:
    table = {info.code: (info.name, info.severity) for info in RULE_INFOS}
    assert table == {
        "BR001": ("no-measured-by", Severity.ERROR),
        "BR002": ("no-data", Severity.ERROR),
        "BR003": ("no-split", Severity.ERROR),
        "BR004": ("no-seed", Severity.ERROR),
        "BR005": ("no-metric", Severity.ERROR),
        "BR006": ("no-print-format", Severity.ERROR),
        "BR007": ("data-not-found", Severity.WARNING),
        "BR008": ("metric-mismatch", Severity.ERROR),
        "BR009": ("goal-without-target", Severity.WARNING),
        "BR010": ("invisible-characters", Severity.WARNING),
    }
    fixable = {info.code for info in RULE_INFOS if info.fix_title}
    assert fixable == {"BR001", "BR002", "BR003", "BR004", "BR005", "BR006", "BR010"}
    assert all(get_rule(code) is not None for code in table)


@pytest.mark.parametrize("module", RULE_MODULES, ids=lambda m: m.CODE)
def test_every_rule_doc_has_the_headings(module: object) -> None:
    doc = module.__doc__ or ""
    headings = ["## What it does", "## Why is this bad?", "## Example", "Use instead:", "## References"]
    if module.FIX_TITLE:  # type: ignore[attr-defined]
        headings.append("## Fix safety")
    for heading in headings:
        assert heading in doc, f"{module.CODE} doc lacks {heading!r}"  # type: ignore[attr-defined]


def test_a_complete_brief_is_clean() -> None:
    assert lint(COMPLETE) == []


@pytest.mark.parametrize(
    ("brief", "expected"),
    [
        pytest.param(
            "# Goal\nPredict churn with AUC above 0.85.\n\nWe evaluate on kapso_datasets/churn.csv.\n",
            [("BR001", 1)],
            id="BR001",
        ),
        pytest.param(
            COMPLETE.replace(" on kapso_datasets/churn.csv", "").replace(
                "`kapso_datasets/churn.csv`: one", "One"
            ),
            [("BR002", MEASURED_LINE + 1)],
            id="BR002",
        ),
        pytest.param(
            COMPLETE.replace(", an 80/20 stratified split", ""), [("BR003", MEASURED_LINE + 1)], id="BR003"
        ),
        pytest.param(COMPLETE.replace(" with seed 42", ""), [("BR004", MEASURED_LINE + 1)], id="BR004"),
        pytest.param(
            COMPLETE.replace(" (higher is better)", ""), [("BR005", MEASURED_LINE + 1)], id="BR005-direction"
        ),
        pytest.param(
            COMPLETE.replace("Measured by AUC (higher is better) on", "Measured by"),
            [("BR005", MEASURED_LINE + 1)],
            id="BR005-metric",
        ),
        pytest.param(
            COMPLETE.replace(",\nprinted as `auc: <value>`.", "."), [("BR006", MEASURED_LINE + 1)], id="BR006"
        ),
        pytest.param(
            COMPLETE.replace("kapso_datasets/churn.csv,", "kapso_datasets/churn_v2.csv,"),
            [("BR007", MEASURED_LINE + 1)],
            id="BR007",
        ),
        pytest.param(
            COMPLETE.replace("`auc: <value>`", "`accuracy: <value>`").replace(
                "AUC (higher", "accuracy (higher"
            ),
            [("BR008", MEASURED_LINE + 2)],
            id="BR008",
        ),
        pytest.param(COMPLETE.replace(", with AUC above 0.85", ""), [("BR009", 3)], id="BR009"),
    ],
)
def test_each_rule_fires_alone_at_its_line(brief: str, expected: list[tuple[str, int]]) -> None:
    assert found(brief) == expected


def test_an_empty_brief_gets_br001_on_its_first_line() -> None:
    assert found("") == [("BR001", 1)]


def test_br001_fix_inserts_a_complete_protocol_after_the_goal() -> None:
    text = "# Goal\nPredict churn with AUC above 0.85.\n\n## Rules\nNo peeking.\n"
    fixed = fix_once(text, "BR001")
    # what Proctor cannot know (split, seed, direction) is a visible blank, never an invented fact
    assert fixed.splitlines()[3] == (
        "Measured by auc (<direction: higher or lower is better>) on kapso_datasets/, "
        "<split: e.g. 80/20, or the file that holds the test set> with <seed: the seed the evaluator uses>, "
        "printed as `auc: <value>`."
    )
    assert fixed.splitlines()[4] == ""
    open_blanks = lint(fixed)
    assert [d.code for d in open_blanks] == ["BR003", "BR004", "BR005"]
    assert all("blank" in d.message and d.fix is None for d in open_blanks)


def test_br001_fix_without_a_goal_appends_at_the_end() -> None:
    fixed = fix_once("Some notes\n", "BR001")
    assert fixed.startswith("Some notes\n\nMeasured by auc (<direction: higher or lower is better>)")
    assert fixed.endswith("`auc: <value>`.\n")
    assert [code for code, _line in found(fixed)] == ["BR003", "BR004", "BR005"]


@pytest.mark.parametrize(
    ("code", "before", "after"),
    [
        ("BR002", " on kapso_datasets/churn.csv", ""),
        ("BR006", ",\nprinted as `auc: <value>`.", "."),
    ],
)
def test_fixes_round_trip(code: str, before: str, after: str) -> None:
    broken = COMPLETE.replace(before, after, 1)
    if code == "BR002":
        broken = broken.replace("`kapso_datasets/churn.csv`: one", "One")
    fixed = fix_once(broken, code)
    assert code not in {d.code for d in lint(fixed)}
    assert [d for d in lint(fixed) if d.severity is Severity.ERROR] == []


@pytest.mark.parametrize(
    ("code", "before", "blank"),
    [
        ("BR003", ", an 80/20 stratified split", "<split: e.g. 80/20, or the file that holds the test set>"),
        ("BR004", " with seed 42", "<seed: the seed the evaluator uses>"),
        ("BR005", " (higher is better)", "<direction: higher or lower is better>"),
    ],
)
def test_fixes_that_would_state_a_fact_leave_a_blank_that_still_fails(
    code: str, before: str, blank: str
) -> None:
    fixed = fix_once(COMPLETE.replace(before, "", 1), code)
    assert blank in fixed
    (left,) = [d for d in lint(fixed) if d.code == code]
    assert blank in left.message and left.fix is None  # no second blank on the next --fix


def test_the_direction_fix_states_the_configured_direction() -> None:
    config = Config.model_validate({"direction": "minimize"})
    (diagnostic,) = [
        d for d in lint(COMPLETE.replace(" (higher is better)", ""), config=config) if d.code == "BR005"
    ]
    assert diagnostic.fix is not None
    fixed = apply_edits(COMPLETE.replace(" (higher is better)", ""), diagnostic.fix.edits)
    assert "AUC (lower is better)" in fixed
    assert "BR005" not in {d.code for d in lint(fixed, config=config)}


def test_several_appends_at_once_read_in_order() -> None:
    text = "Goal: AUC above 0.9\n\nMeasured by AUC.\n"
    fixes = [d.fix for d in lint(text) if d.fix is not None]
    edits = [edit for fix in fixes for edit in fix.edits]
    fixed = apply_edits(text, edits)
    assert fixed.splitlines()[2] == (
        "Measured by AUC on kapso_datasets/, <split: e.g. 80/20, or the file that holds the test set>, "
        "<seed: the seed the evaluator uses>, <direction: higher or lower is better>, printed as `auc: <value>`."
    )
    assert [d.code for d in lint(fixed)] == ["BR003", "BR004", "BR005"]


def test_the_seed_fix_uses_the_evaluator_seed() -> None:
    files = {
        **WORKSPACE,
        EVALUATOR: "from sklearn.model_selection import train_test_split\nSEED = 7\n" + EVALUATOR_SOURCE,
    }
    fixed = fix_once(COMPLETE.replace(" with seed 42", ""), "BR004", files)
    assert ", seed 7" in fixed


def test_fixes_are_offered_only_when_they_resolve_the_finding() -> None:
    files = {EVALUATOR: 'print("done")\n'}  # no data directory, no metric print
    broken = COMPLETE.replace(" on kapso_datasets/churn.csv", "").replace(
        "`kapso_datasets/churn.csv`: one", "One"
    )
    broken = broken.replace("Measured by AUC (higher is better)", "Measured by").replace(
        ",\nprinted as `auc: <value>`.", "."
    )
    diagnostics = {d.code: d for d in lint(broken, files)}
    assert {"BR002", "BR005", "BR006"} <= set(diagnostics)
    assert diagnostics["BR002"].fix is None  # no data to name
    assert diagnostics["BR005"].fix is None  # no metric to name
    assert diagnostics["BR006"].fix is None
    config = Config(metric="auc")
    with_config = {d.code: d for d in lint(broken, files, config)}
    assert with_config["BR006"].fix is not None
    assert with_config["BR006"].fix.edits[0].new_text == ", printed as `auc: <value>`"


def test_br008_points_at_the_evaluator_print() -> None:
    files = {**WORKSPACE, EVALUATOR: 'import json\nacc = 0.9\nprint(f"accuracy: {acc:.4f}")\n'}
    (diagnostic,) = lint(COMPLETE, files)
    assert diagnostic.code == "BR008"
    assert (
        diagnostic.message
        == "the brief's metric `auc` differs from the name the evaluator prints: `accuracy`"
    )
    (related,) = diagnostic.related
    assert related.path == EVALUATOR
    assert related.range.start.line == 2
    assert related.message == "the evaluator prints `accuracy`"
    # the squiggle is on the print format's name in the brief
    line = COMPLETE.splitlines()[diagnostic.range.start.line]
    assert line[diagnostic.range.start.character : diagnostic.range.end.character] == "auc"


@pytest.mark.parametrize("printed", ["roc_auc", "AUC", "test_auc", "auroc"])
def test_br008_tolerates_spellings_of_the_same_metric(printed: str) -> None:
    files = {**WORKSPACE, EVALUATOR: f'auc = 0.5\nprint(f"{printed}: {{auc:.4f}}")\n'}
    assert lint(COMPLETE, files) == []


def test_br008_uses_the_metric_when_there_is_no_print_format() -> None:
    files = {**WORKSPACE, EVALUATOR: 'r = 1.0\nprint(f"rmse: {r:.4f}")\n'}
    text = COMPLETE.replace(",\nprinted as `auc: <value>`.", ".")
    diagnostics = lint(text, files)
    assert [(d.code, d.range.start.line + 1) for d in diagnostics] == [("BR006", 6), ("BR008", 6)]
    br008 = diagnostics[1]
    assert text.splitlines()[5][br008.range.start.character : br008.range.end.character] == "AUC"


def test_br008_is_quiet_without_an_evaluator_or_a_print() -> None:
    assert lint(COMPLETE, {k: v for k, v in WORKSPACE.items() if k != EVALUATOR}) == []
    assert lint(COMPLETE, {**WORKSPACE, EVALUATOR: "import json\n"}) == []
    assert lint(COMPLETE, {**WORKSPACE, EVALUATOR: "def broken(:\n"}) == []


def test_br008_follows_the_configured_command() -> None:
    config = Config(command="python eval/run.py")
    files = {**WORKSPACE, "eval/run.py": 'print(f"f1: {0.5:.3f}")\n'}
    assert [d.code for d in lint(COMPLETE, files, config)] == ["BR008"]


def test_br007_checks_data_directory_paths_and_the_data_section_but_not_the_suite() -> None:
    text = COMPLETE + "\n## Rules\nDo not edit `kapso_evaluation/` or read `kapso_datasets/holdout/`.\n"
    assert found(text) == [("BR007", 13)]
    pure = LintContext()  # no workspace: no file-system checks
    assert [d.code for d in lint_document("brief.md", text, DocumentKind.BRIEF, pure)] == []


def test_br007_accepts_paths_relative_to_a_nested_brief() -> None:
    files = {**WORKSPACE, "tasks/kapso_datasets/x.csv": ""}
    text = COMPLETE.replace("kapso_datasets/churn.csv,", "kapso_datasets/x.csv,")
    diagnostics = lint_document("tasks/x.brief.md", text, DocumentKind.BRIEF, context(files))
    assert diagnostics == []


@pytest.mark.parametrize(
    "goal",
    [
        "Predict churn with AUC above 0.85.",
        "Reach an RMSE under 20,000 on house prices.",
        "p95 latency below 120 ms.",
        "Beat the baseline F1 by 2 points.",
        "A churn score of at least 0.7.",
    ],
)
def test_br009_quiet_when_the_goal_has_a_metric_and_a_number(goal: str) -> None:
    text = re.sub(
        r"Predict which customers.*\n", goal + "\n", COMPLETE.replace("AUC (higher", "churn score (higher")
    )
    text = text.replace("`auc: <value>`", "`churn_score: <value>`")
    files = {**WORKSPACE, EVALUATOR: 'print(f"churn_score: {0.5:.4f}")\n'}
    assert [d.code for d in lint(text, files) if d.code == "BR009"] == []


@pytest.mark.parametrize(
    ("goal", "lacks"), [("Improve the churn model.", "a metric and a number"), ("Maximise AUC.", "a number")]
)
def test_br009_says_what_the_goal_lacks(goal: str, lacks: str) -> None:
    text = COMPLETE.replace("Predict which customers churn next month, with AUC above 0.85.", goal)
    (diagnostic,) = [d for d in lint(text) if d.code == "BR009"]
    assert lacks in diagnostic.message
    assert diagnostic.severity is Severity.WARNING


def test_noqa_in_an_html_comment_silences_a_brief_rule() -> None:
    text = COMPLETE.replace(" with seed 42,", ", <!-- proctor: noqa: BR004 -->")
    assert lint(text) == []


def test_briefs_with_non_ascii_text_report_code_point_columns() -> None:
    text = "Goal: ☃☃ AUC above 0.9\n\nMeasured by 🚀 AUC (higher is better) on kapso_datasets/chürn.csv, 80/20, seed 1, printed as `auc: <value>`\n"
    (diagnostic,) = lint(text)
    assert diagnostic.code == "BR007"
    line = text.splitlines()[2]
    assert (
        line[diagnostic.range.start.character : diagnostic.range.end.character] == "kapso_datasets/chürn.csv"
    )


def test_br007_ignores_dataset_names_that_are_not_paths() -> None:
    text = COMPLETE.replace("on kapso_datasets/churn.csv", "on MNIST").replace(
        "`kapso_datasets/churn.csv`", "MNIST"
    )
    assert found(text) == []


@pytest.mark.parametrize(
    "protocol",
    [
        "Measured by accuracy (higher is better) on kapso_datasets/test.csv, printed as `accuracy: <value>`.",
        "Measured by exact_match (higher is better) on kapso_datasets/answer.csv, printed as `exact_match: <value>`.",
        "Measured by F1 (higher is better) on kapso_datasets/squad.json, the official dev set, printed as `f1: <value>`.",
        "Measured by bpb (lower is better) on kapso_datasets/corpus, shard 00042, printed as `bpb: <value>`.",
    ],
)
def test_a_fixed_split_needs_no_seed(protocol: str) -> None:
    text = f"# Goal\nAccuracy above 0.9.\n\n{protocol}\n"
    assert not {"BR003", "BR004"} & {d.code for d in lint(text)}


def test_a_random_split_still_needs_its_seed() -> None:
    text = COMPLETE.replace(" with seed 42", "")
    assert "BR004" in {d.code for d in lint(text)}


def test_invisible_characters_are_reported_removed_by_the_fix_and_ignored_by_the_parser() -> None:
    hidden = COMPLETE.replace("seed 42", "se\u200bed 42").replace("80/20", "80/\u202e20")
    found = lint(hidden)
    invisible = [d for d in found if d.code == "BR010"]
    assert [d.range.start.line for d in invisible] == [5]
    assert "U+202E" in invisible[0].message and "1 more" in invisible[0].message
    # normalised before parsing: the split and the seed are still read, at their written columns
    assert not {"BR003", "BR004"} & {d.code for d in found}
    protocol = parse_brief(hidden).protocol
    assert protocol is not None and protocol.seed is not None
    line = hidden.splitlines()[5]
    start = protocol.seed.range.start.character
    assert line[start:].startswith("se\u200bed 42")
    assert invisible[0].fix is not None
    fixed = apply_edits(hidden, invisible[0].fix.edits)
    assert fixed == COMPLETE
    assert lint(fixed) == []
