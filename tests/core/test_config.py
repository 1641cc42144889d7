"""Config loading (SPEC §2): defaults, proctor.toml over pyproject, CF001 errors with file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config import Config, evaluator_entry, load_config, validate_config_text
from core.errors import ConfigError


def test_defaults_without_a_config_file(tmp_path: Path) -> None:
    loaded = load_config(tmp_path)
    assert loaded.path is None
    assert loaded.config == Config()
    assert loaded.config.campaign.sandbox == "auto"
    assert loaded.config.judge.samples == 3


def test_proctor_toml_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.proctor]\nmetric = "rmse"\n')
    (tmp_path / "proctor.toml").write_text('metric = "auc"\n[campaign]\nparallel = 2\n')
    loaded = load_config(tmp_path)
    assert loaded.config.metric == "auc"
    assert loaded.config.campaign.parallel == 2
    assert loaded.path == tmp_path / "proctor.toml"


def test_pyproject_tool_section(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.proctor]\ntimeout_s = 30\n')
    loaded = load_config(tmp_path)
    assert loaded.config.timeout_s == 30
    assert loaded.path == tmp_path / "pyproject.toml"


def test_pyproject_without_proctor_section_is_no_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert load_config(tmp_path).path is None


@pytest.mark.parametrize(
    ("text", "line", "key", "problem"),
    [
        ('metric = "auc"\ntimeout = 5\n', 2, "timeout", "unknown key"),
        ('\n\n[campaign]\nparallel = "two"\n', 4, "campaign.parallel", "valid integer"),
        ('[judge]\nscale = "1-10"\n', 2, "judge.scale", "'0-1', '1-5' or '0-10'"),
        ('direction = "up"\n', 1, "direction", "maximize"),
        ("[campaign\n", 1, "", "invalid TOML"),
        ('timeout_s = "600"\n', 1, "timeout_s", "valid number"),
        ("[judge.prices]\ngpt = [1.0]\n", 1, "judge.prices", "usd_per_1M_input"),
        ("[github]\nbogus = true\n", 2, "github.bogus", "unknown key"),
    ],
)
def test_errors_name_file_line_and_key(text: str, line: int, key: str, problem: str) -> None:
    config, problems = validate_config_text(text, "proctor.toml")
    assert config is None
    first = problems[0]
    assert (first.line, first.key) == (line, key)
    assert problem in first.problem
    assert str(first).startswith(f"proctor.toml:{line}")


def test_load_config_raises_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "proctor.toml").write_text("[campaign]\nsandbox = 'docker'\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert str(info.value).startswith(f"{tmp_path / 'proctor.toml'}:2: `campaign.sandbox`")


def test_every_problem_is_reported() -> None:
    _config, problems = validate_config_text("a = 1\nb = 2\n[campaign]\nc = 3\n", "proctor.toml")
    assert [(p.line, p.key) for p in problems] == [(1, "a"), (2, "b"), (4, "campaign.c")]


@pytest.mark.parametrize(
    ("command", "entry"),
    [
        ("python kapso_evaluation/evaluate.py", "kapso_evaluation/evaluate.py"),
        ("python3 ./eval/run.py --full", "eval/run.py"),
        ("python -m kapso_evaluation.evaluate", "kapso_evaluation/evaluate.py"),
        ("bash run.sh", None),
        ("python 'unterminated", None),
    ],
)
def test_evaluator_entry(command: str, entry: str | None) -> None:
    assert evaluator_entry(Config(command=command)) == entry
