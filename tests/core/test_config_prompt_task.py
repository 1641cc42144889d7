"""`[[prompt_task]]` (README "Prompt optimization from feedback"): validated like every key, CF001 at the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.check import check_paths
from core.config import parse_config_text, validate_config_text

GOOD = """command = "python kapso_evaluation/evaluate.py"

[[prompt_task]]
name = "summarize_ticket"
prompt_file = "prompts/summarize.txt"
description = "Summarize support tickets into one or two sentences"
criteria = "accuracy, completeness, conciseness"
scale = "1-5"
feedback_threshold = 50
judge_model = "gpt-4o-mini"
teacher_model = "gpt-4o"
budget_usd = 2.50

[[prompt_task]]
name = "classify"
prompt_file = "prompts/classify.txt"
"""


def test_tasks_are_read_with_their_defaults() -> None:
    config = parse_config_text(GOOD, "proctor.toml")
    first, second = config.prompt_task
    assert (first.name, first.scale, first.feedback_threshold, first.budget_usd) == (
        "summarize_ticket",
        "1-5",
        50,
        2.5,
    )
    assert (second.feedback_threshold, second.judge_model, second.teacher_model) == (
        50,
        "gpt-4o-mini",
        "gpt-4o",
    )
    assert config.prompt_task_named("classify") is second and config.prompt_task_named("nope") is None


@pytest.mark.parametrize(
    ("old", "new", "line", "key"),
    [
        ('scale = "1-5"', 'scale = "1-7"', 8, "prompt_task.0.scale"),
        ("feedback_threshold = 50", "feedback_threshold = 0", 9, "prompt_task.0.feedback_threshold"),
        ("budget_usd = 2.50", "budget_usd = -1.0", 12, "prompt_task.0.budget_usd"),
        ('prompt_file = "prompts/classify.txt"', 'prompt_file = "x"\ncolour = 1', 17, "prompt_task.1.colour"),
        ('name = "classify"', 'name = "has space"', 15, "prompt_task.1.name"),
        ('name = "classify"', 'name = "summarize_ticket"', 1, "prompt_task"),
        ("feedback_threshold = 50", 'feedback_threshold = "50"', 9, "prompt_task.0.feedback_threshold"),
    ],
)
def test_a_bad_task_key_is_named_with_its_line(old: str, new: str, line: int, key: str) -> None:
    _, problems = validate_config_text(GOOD.replace(old, new, 1), "proctor.toml")
    assert [(p.line, p.key) for p in problems] == [(line, key)]


def test_proctor_check_reports_cf001_for_a_bad_task(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "proctor.toml").write_text(
        GOOD.replace("feedback_threshold = 50", "feedback_threshold = -3"), "utf-8"
    )
    result = check_paths((), tmp_path, select=["CF"])
    found = [(d.code, d.range.start.line + 1) for d in result.diagnostics]
    assert found == [("CF001", 9)]
