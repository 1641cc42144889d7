"""What keeps `proctor guard` fast (SPEC §11) without changing what it says: only the invoked command module
is registered, and pydantic is imported only for a config file it has not accepted before.

These check imports and verdicts, not timings (timings are bench/guard_speed.py's).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from core import config as config_module
from core.cli import COMMAND_MODULES, COMMANDS
from core.config import Config
from core.integrity.settings import (
    CONFIG_FILE,
    DEFAULTS,
    PYPROJECT_FILE,
    GuardSettings,
    ValidatedConfigs,
)
from tests.core.integrity.cases import BASE
from tests.core.integrity.helpers import commit_all, init_repo, write

PROBE = """
import json, sys
from core.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "pydantic": "pydantic" in sys.modules}))
"""


def _guard(repo: Path, *args: str) -> tuple[dict[str, object], str]:
    """Run `proctor guard` in a fresh interpreter: exit code, whether pydantic was imported, and the output."""
    argv = ["guard", "--baseline", "HEAD~1", "--candidate", "HEAD", "--format", "json", *args]
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=repo, capture_output=True, text=True, check=False
    )
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr
    return json.loads(lines[-1]), "\n".join(lines[:-1]) + proc.stderr


def test_commands_table_names_every_command_of_every_module() -> None:
    registered: dict[str, str] = {}
    for name in COMMAND_MODULES:
        app = typer.Typer()
        __import__(name, fromlist=["register"]).register(app)
        for command in app.registered_commands:
            assert command.name is not None
            registered[command.name] = name
        for group in app.registered_groups:
            assert group.name is not None
            registered[group.name] = name
    assert registered == COMMANDS


def test_guard_without_config_never_imports_pydantic(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    commit_all(repo, "base")
    write(repo, {"kapso_evaluation/metrics.py": "def accuracy(labels, preds):\n    return 1.0\n"})
    commit_all(repo, "tampered")
    result, output = _guard(repo)
    assert result == {"code": 1, "pydantic": False}
    assert json.loads(output)["findings"][0]["code"] == "IN001"


def test_an_accepted_config_is_remembered_by_blob_and_a_bad_one_never(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {**BASE, "proctor.toml": 'protected_paths = ["solution.py"]\n'})
    commit_all(repo, "base")
    write(repo, {"solution.py": "def predict(i):\n    return 0\n"})
    commit_all(repo, "edits a protected path")
    first, first_out = _guard(repo)
    second, second_out = _guard(repo)
    assert first == {"code": 1, "pydantic": True}  # validated by pydantic the first time
    assert second == {"code": 1, "pydantic": False}  # the same blob, read back
    assert first_out == second_out and json.loads(first_out)["findings"][0]["code"] == "IN010"

    write(repo, {"proctor.toml": "protected_paths = 3\n"})
    commit_all(repo, "bad config")
    write(repo, {"README.md": "x\n"})
    commit_all(repo, "candidate")
    for _ in range(2):
        result, output = _guard(repo)
        assert result == {"code": 2, "pydantic": True}
        assert "protected_paths" in output and "Traceback" not in output


def test_remembered_configs_are_keyed_by_validator_and_ignore_junk(tmp_path: Path) -> None:
    store = ValidatedConfigs(tmp_path / "configs.json")
    config = Config(evaluation_dir="suite", protected_paths=["a", "b"], command="python -m suite.run")
    store.put("blob1", CONFIG_FILE, config)
    again = ValidatedConfigs(tmp_path / "configs.json")
    assert again.get("blob1", CONFIG_FILE) == GuardSettings.of(config)
    assert again.get("blob1", PYPROJECT_FILE) is None and again.get("blob2", CONFIG_FILE) is None
    data = json.loads((tmp_path / "configs.json").read_text())
    (key,) = data
    data[key]["command"] = 7
    (tmp_path / "configs.json").write_text(json.dumps(data))
    assert ValidatedConfigs(tmp_path / "configs.json").get("blob1", CONFIG_FILE) is None
    (tmp_path / "configs.json").write_text("not json")
    assert ValidatedConfigs(tmp_path / "configs.json").get("blob1", CONFIG_FILE) is None


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(GuardSettings)])
def test_defaults_are_configs_defaults(field: str) -> None:
    ours, theirs = getattr(DEFAULTS, field), getattr(Config(), field)
    assert (list(ours) if field == "protected_paths" else ours) == theirs
    assert (CONFIG_FILE, PYPROJECT_FILE) == (config_module.CONFIG_FILE, config_module.PYPROJECT_FILE)
