"""The brief parser on briefs written the way people write them: every field, its range, and what is missing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.brief import (
    Field,
    metric_key,
    parse_brief,
    protocol_at,
    same_metric,
    split_lines,
    workspace_paths,
)
from core.diagnostics import Range
from core.fixes import apply_edits, select_fixes
from core.lint import lint_document
from core.rules.base import DocumentKind, LintContext

CHURN = """# Churn

## Goal
Predict which customers churn next month, with AUC above 0.85.

Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 stratified split with seed 42, printed as `auc: <value>`.

## Rules
- Do not edit `kapso_evaluation/`.

## Data
`kapso_datasets/churn.csv`: one row per customer.
"""


def text_at(text: str, field: Field | Range) -> str:
    """The source text a range covers (single-line ranges)."""
    rng = field.range if isinstance(field, Field) else field
    assert rng.start.line == rng.end.line
    return split_lines(text)[rng.start.line][rng.start.character : rng.end.character]


def test_the_example_from_the_spec_parses_every_field_with_its_range() -> None:
    brief = parse_brief(CHURN)
    protocol = brief.protocol
    assert protocol is not None
    assert protocol.as_dict() == {
        "data": "kapso_datasets/churn.csv",
        "split": "80/20 stratified split",
        "seed": "42",
        "metric": "AUC",
        "direction": "maximize",
        "print_format": "auc: <value>",
    }
    assert text_at(CHURN, protocol.data) == "kapso_datasets/churn.csv"  # type: ignore[arg-type]
    assert text_at(CHURN, protocol.split) == "80/20 stratified split"  # type: ignore[arg-type]
    assert text_at(CHURN, protocol.seed) == "seed 42"  # type: ignore[arg-type]
    assert text_at(CHURN, protocol.metric) == "AUC"  # type: ignore[arg-type]
    assert text_at(CHURN, protocol.direction) == "higher is better"  # type: ignore[arg-type]
    assert text_at(CHURN, protocol.print_format) == "auc: <value>"  # type: ignore[arg-type]
    assert protocol.range.start.line == protocol.range.end.line == 5
    assert text_at(CHURN, protocol.label_range) == "Measured by"
    assert protocol.print_name == "auc" and protocol.metric_name == "auc"
    assert protocol.seed_value == 42 and protocol.split_ratios == (0.8, 0.2) and protocol.folds is None
    assert protocol.missing() == []
    # appended text goes before the final period
    line = split_lines(CHURN)[5]
    assert line[protocol.append_at.character :] == "."


def test_goal_rules_and_data_sections() -> None:
    brief = parse_brief(CHURN)
    assert brief.goal is not None
    assert brief.goal.text == "Predict which customers churn next month, with AUC above 0.85."
    assert brief.goal.range.start.line == 2
    assert brief.rules is not None and "kapso_evaluation" in brief.rules.text
    assert brief.data is not None and brief.data.text.startswith("`kapso_datasets/churn.csv`")
    assert [s.title for s in brief.sections] == ["Churn", "Goal", "Rules", "Data"]


def test_non_ascii_text_before_the_fields_keeps_code_point_columns() -> None:
    text = "Goal: résumé ranking ☃ with NDCG@10 ≥ 0.4\n\n**Measured by:** 🚀 NDCG@10 (maximize) on `kapso_datasets/qüeries.jsonl`, held-out test set, seed=7, printed as `ndcg: <value>`\n"
    protocol = parse_brief(text).protocol
    assert protocol is not None
    line = split_lines(text)[2]
    assert protocol.data is not None and protocol.data.value == "kapso_datasets/qüeries.jsonl"
    start = protocol.data.range.start.character
    assert line[start : protocol.data.range.end.character] == "kapso_datasets/qüeries.jsonl"
    assert line.index("kapso_datasets") == start  # code points, not UTF-8 bytes or UTF-16 units
    assert text_at(text, protocol.metric) == "NDCG@10"  # type: ignore[arg-type]
    assert protocol.direction is not None and protocol.direction.value == "maximize"
    assert protocol.split is not None and protocol.split.value == "held-out test set"
    assert protocol.seed_value == 7
    goal = parse_brief(text).goal
    assert goal is not None and goal.text == "résumé ranking ☃ with NDCG@10 ≥ 0.4"


def test_a_wrapped_measured_by_line_runs_until_the_blank_line() -> None:
    text = (
        "# Goal\nCut house-price error: RMSE below 20000.\n\n"
        "Measured by RMSE (lower is better)\n"
        "on kapso_datasets/houses.parquet using\n"
        "5-fold cross-validation, random_state=123,\n"
        "printed as rmse: 0.1234.\n"
        "\n"
        "This line is not part of the protocol: seed 99.\n"
    )
    protocol = parse_brief(text).protocol
    assert protocol is not None
    assert (protocol.range.start.line, protocol.range.end.line) == (3, 6)
    assert protocol.metric is not None and protocol.metric.value == "RMSE"
    assert protocol.direction is not None and protocol.direction.value == "minimize"
    assert protocol.data is not None and protocol.data.range.start.line == 4
    assert text_at(text, protocol.data) == "kapso_datasets/houses.parquet"
    assert protocol.split is not None and protocol.split.value == "5-fold cross-validation"
    assert protocol.folds == 5
    assert protocol.seed_value == 123 and protocol.seed is not None and protocol.seed.range.start.line == 5
    assert protocol.print_format is not None and protocol.print_format.value == "rmse: 0.1234"
    assert protocol.append_at.line == 6


def test_a_measured_by_label_followed_by_a_list() -> None:
    text = """# Task
Measured by:
- metric: macro F1 (higher is better)
- data: kapso_datasets/tickets.jsonl
- split: 70/15/15 train/validation/test
- seed: 7
- printed as `macro_f1: <value>`

# Data
The `kapso_datasets/tickets.jsonl` file.
"""
    protocol = parse_brief(text).protocol
    assert protocol is not None
    assert protocol.as_dict() == {
        "data": "kapso_datasets/tickets.jsonl",
        "split": "70/15/15 train/validation/test",
        "seed": "7",
        "metric": "macro F1",
        "direction": "maximize",
        "print_format": "macro_f1: <value>",
    }
    assert protocol.split_ratios == (0.7, 0.15, 0.15)
    assert (protocol.range.start.line, protocol.range.end.line) == (1, 6)


@pytest.mark.parametrize(
    ("line", "field", "expected"),
    [
        (
            "- Measured by accuracy on the CIFAR-10 dataset, 5-fold CV, seed 0, printed as 'accuracy: 0.xx'",
            "data",
            "CIFAR-10",
        ),
        ("Measured by accuracy on MNIST, the official test split, seed 0.", "data", "MNIST"),
        ("measured by: AUC on the Telco churn dataset, 80/20 split, seed 1", "data", "Telco churn"),
        ("MEASURED BY AUC on data/churn/2024.csv, 80/20, seed 1", "data", "data/churn/2024.csv"),
        ("Measured by AUC, data: churn_v2, 80/20 split, seed 1", "data", "churn_v2"),
        ("Measured by AUC on x.csv (hold-out set of 20%), seed 3", "split", "hold-out set"),
        ("Measured by AUC on x.csv, 20% held out, seed 3", "split", "20% held out"),
        ("Measured by AUC on x.csv, a train/test split, seed 3", "split", "train/test"),
        ("Measured by AUC on x.csv using the validation set, seed 3", "split", "validation set"),
        (
            "Measured by AUC on x.csv, 10-fold stratified cross-validation, seed 3",
            "split",
            "10-fold stratified cross-validation",
        ),
        ("Measured by AUC on x.csv, a time-based split, seed 3", "split", "time-based split"),
        ("Measured by AUC on x.csv, an 80-20 split, seed 3", "split", "80-20 split"),
        ("Measured by AUC on x.csv, 80/20, seeded with 11", "seed", "11"),
        ("Measured by AUC on x.csv, 80/20, seed=5", "seed", "5"),
        ("Measured by AUC on x.csv, 80/20, `random_state=2024`", "seed", "2024"),
        ("Measured by AUC on x.csv, 80/20, random seed: 9", "seed", "9"),
        ("Measured by log loss on x.csv, minimise it", "direction", "minimize"),
        ("Measured by latency on x.csv (lower is better)", "direction", "minimize"),
        ("Measured by accuracy on x.csv (the higher the better)", "direction", "maximize"),
        ("Measured by AUC on x.csv, direction: max", "direction", "maximize"),
        ("Measured by ROC AUC on x.csv", "metric", "ROC AUC"),
        ("Measured by `churn_auc` on x.csv", "metric", "churn_auc"),
        ("Measured by pass@1 on x.jsonl", "metric", "pass@1"),
        ("Measured by churn score on x.csv", "metric", "churn score"),
        ("Measured by R² on x.csv", "metric", "R²"),
        ("Measured by AUC on x.csv, printed as auc: <value>", "print_format", "auc: <value>"),
        ('Measured by AUC on x.csv, the last line is "auc: 0.8412"', "print_format", "auc: 0.8412"),
        ("Measured by AUC on x.csv, output: `val.auc: {score}`", "print_format", "val.auc: {score}"),
    ],
)
def test_liberal_field_forms(line: str, field: str, expected: str) -> None:
    protocol = parse_brief(line + "\n").protocol
    assert protocol is not None
    value = getattr(protocol, field)
    assert value is not None, f"{field} not found in {line!r}"
    assert value.value == expected
    if field not in ("direction", "seed", "print_format"):
        assert text_at(line, value) == expected


@pytest.mark.parametrize(
    ("line", "missing"),
    [
        (
            "Measured by AUC (higher is better), an 80/20 split with seed 42, printed as `auc: <value>`.",
            ["data"],
        ),
        (
            "Measured by AUC (higher is better) on kapso_datasets/c.csv with seed 42, printed as `auc: <value>`.",
            ["split"],
        ),
        (
            "Measured by AUC (higher is better) on kapso_datasets/c.csv, an 80/20 split, printed as `auc: <value>`.",
            ["seed"],
        ),
        (
            "Measured by AUC on kapso_datasets/c.csv, an 80/20 split with seed 42, printed as `auc: <value>`.",
            ["direction"],
        ),
        (
            "Measured by kapso_datasets/c.csv (higher is better), 80/20 split, seed 42, printed as `auc: <value>`.",
            ["metric"],
        ),
        (
            "Measured by AUC (higher is better) on kapso_datasets/c.csv, an 80/20 split with seed 42.",
            ["print_format"],
        ),
        ("Measured by: TBD", ["data", "split", "seed", "metric", "direction", "print_format"]),
    ],
)
def test_missing_fields_are_none(line: str, missing: list[str]) -> None:
    protocol = parse_brief(f"# Goal\nAUC above 0.9\n\n{line}\n").protocol
    assert protocol is not None
    assert protocol.missing() == missing


def test_no_measured_by_line_and_lines_inside_code_fences_do_not_count() -> None:
    text = "# Goal\nBetter churn.\n\n```markdown\nMeasured by AUC on x.csv\n```\n\nThe model is measured by AUC.\n"
    assert parse_brief(text).protocol is None
    assert parse_brief("").protocol is None
    assert parse_brief("").goal is None


def test_heading_measured_by_takes_the_next_paragraph() -> None:
    text = "## Measured by\n\nAUC (higher is better) on kapso_datasets/c.csv, 80/20, seed 1, printed as `auc: <v>`.\n"
    protocol = parse_brief(text).protocol
    assert protocol is not None and protocol.missing() == []
    assert protocol.data is not None and protocol.data.range.start.line == 2


def test_the_goal_section_stops_before_the_protocol() -> None:
    text = "# Goal\nImprove the churn model.\n\nMeasured by AUC on kapso_datasets/churn.csv, 80/20, seed 4.\n"
    goal = parse_brief(text).goal
    assert goal is not None and goal.text == "Improve the churn model."
    assert goal.range.end.line == 1


def test_protocol_at_answers_only_on_the_protocol_lines() -> None:
    text = "Goal: AUC above 0.8\n\nMeasured by AUC\non kapso_datasets/c.csv, 80/20, seed 1.\n\nMore.\n"
    assert protocol_at(text, 0) is None
    assert protocol_at(text, 2) is not None
    assert protocol_at(text, 3) is not None
    assert protocol_at(text, 5) is None


def test_crlf_briefs_have_the_same_positions() -> None:
    text = CHURN.replace("\n", "\r\n")
    protocol = parse_brief(text).protocol
    assert protocol is not None and protocol.data is not None
    assert protocol.data.range == parse_brief(CHURN).protocol.data.range  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("AUC", "auc", True),
        ("ROC AUC", "roc_auc", True),
        ("AUROC", "auc", True),
        ("test_auc", "AUC", True),
        ("F1 score", "f1", True),
        ("macro F1", "f1_macro", True),
        ("log loss", "cross-entropy", True),
        ("R²", "r2", True),
        ("accuracy", "acc", True),
        ("auc", "accuracy", False),
        ("macro F1", "f1", False),
        ("rmse", "mse", False),
        ("churn_score", "churn score", True),
    ],
)
def test_metric_names_compare_sensibly(a: str, b: str, same: bool) -> None:
    assert same_metric(a, b) is same, (metric_key(a), metric_key(b))


def test_workspace_paths_named_in_the_brief() -> None:
    paths = workspace_paths(CHURN, ["kapso_datasets"])
    assert [(p.value, p.range.start.line) for p in paths] == [
        ("kapso_datasets/churn.csv", 5),
        ("kapso_datasets/churn.csv", 11),
    ]
    text = "See https://example.com/data/x.csv and /secure/labels.csv and `kapso_datasets/<file>`.\n"
    assert workspace_paths(text, ["kapso_datasets"]) == []


FRAGMENTS = [
    "Measured by",
    "measured by:",
    "**Measured by:**",
    "- ",
    "# ",
    "## Goal",
    "Goal:",
    "\n",
    "\r\n",
    "\n\n",
    "`",
    "auc: <value>",
    "80/20",
    "5-fold CV",
    "seed 42",
    "random_state=7",
    "kapso_datasets/x.csv",
    "(higher is better)",
    "minimize",
    " on ",
    ", ",
    ".",
    "```",
    "é",
    "☃",
    "🚀",
    "<data>",
    "metric: f1",
    "data: ",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=40))
def test_any_brief_parses_and_lints_without_raising(parts: list[str]) -> None:
    text = "".join(parts)
    brief = parse_brief(text)
    lines = split_lines(text)
    protocol = brief.protocol
    if protocol is not None:
        for name in ("data", "split", "seed", "metric", "direction", "print_format"):
            field = getattr(protocol, name)
            if field is None:
                continue
            start, end = field.range.start, field.range.end
            assert 0 <= start.line <= end.line < len(lines)
            assert 0 <= start.character <= len(lines[start.line])
            assert 0 <= end.character <= len(lines[end.line])
            if name in ("data", "metric") and start.line == end.line:
                assert lines[start.line][start.character : end.character] == field.value
    diagnostics = lint_document("brief.md", text, DocumentKind.BRIEF, LintContext())
    fixes = select_fixes(diagnostics, {"brief.md": text.removeprefix("\ufeff")})
    apply_edits(text, [edit for d in fixes if d.fix is not None for edit in d.fix.edits])
