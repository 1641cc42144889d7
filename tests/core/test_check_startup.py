"""What keeps `proctor check` fast (SPEC §11) without changing what it finds: pydantic is imported only when the
workspace has a config file to validate, the defaults used without one are `Config()`'s, and the integrity rules'
modules (the guard's) load only when the whole rule table is needed.

These check imports and findings, not timings (timings are bench/check_speed.py's).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.config import Config
from core.config_view import DEFAULTS, ConfigDefaults, has_config_file

PROBE = """
import json, sys
from core.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "pydantic": "pydantic" in sys.modules, "typer": "typer" in sys.modules,
                  "integrity_rules": "core.integrity.checks" in sys.modules}))
"""
EVALUATOR = """import sys
print("auc: 0.5")
"""


def _check(workspace: Path) -> tuple[dict[str, object], list[dict[str, object]]]:
    """`proctor check --format json` in a fresh interpreter: exit code and imports, and the diagnostics."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "check", "--format", "json"],
        cwd=workspace,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr
    report = json.loads("\n".join(lines[:-1]))
    return json.loads(lines[-1]), report["diagnostics"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "kapso_evaluation").mkdir()
    (tmp_path / "kapso_evaluation" / "evaluate.py").write_text(EVALUATOR, encoding="utf-8")
    (tmp_path / ".git").mkdir()  # the workspace root, as `proctor check` finds it upward
    return tmp_path


def test_check_without_a_config_file_imports_neither_pydantic_nor_typer(workspace: Path) -> None:
    status, diagnostics = _check(workspace)
    assert status == {"code": 1, "pydantic": False, "typer": False, "integrity_rules": False}
    assert {"EV005", "EV007"} <= {d["code"] for d in diagnostics}


def test_a_config_file_is_validated_and_its_keys_are_read(workspace: Path) -> None:
    (workspace / "score.py").write_text(EVALUATOR, encoding="utf-8")
    (workspace / "proctor.toml").write_text('command = "python score.py"\n', encoding="utf-8")
    status, diagnostics = _check(workspace)
    assert status["pydantic"] is True
    # score.py is the evaluator now; kapso_evaluation/evaluate.py is only suite code (no EV005 there)
    assert {d["path"] for d in diagnostics if d["code"] == "EV005"} == {"score.py"}
    (workspace / "proctor.toml").write_text("metrik = 1\n", encoding="utf-8")
    status, diagnostics = _check(workspace)
    assert status["code"] == 2
    assert [d["message"] for d in diagnostics if d["code"] == "CF001"] == ["`metrik`: unknown key"]


def test_pyproject_without_a_proctor_table_is_no_config_file(tmp_path: Path) -> None:
    assert not has_config_file(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 99\n", encoding="utf-8")
    assert not has_config_file(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool]\nproctor.metric = "auc"\n', encoding="utf-8")
    assert has_config_file(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool\n", encoding="utf-8")
    assert has_config_file(tmp_path)  # not TOML: the validator reports it


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(ConfigDefaults)])
def test_defaults_are_configs_defaults(field: str) -> None:
    ours, theirs = getattr(DEFAULTS, field), getattr(Config(), field)
    assert (list(ours) if field == "protected_paths" else ours) == theirs
    assert DEFAULTS.model_fields_set == Config().model_fields_set == set()
