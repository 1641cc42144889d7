"""The config as the static rules read it, and its defaults, without importing pydantic.

`proctor check` must start fast (SPEC §11: the whole process ≤ 300 ms on a 1,000-line evaluator) and
importing pydantic and building `core.config`'s models costs about half of that. A workspace without a
config file needs no validation, so the rules read a `ConfigView`: `core.config.Config` satisfies it, and
`DEFAULTS` stands in for `Config()` when there is no file (a test keeps the two equal). Only a workspace
that has a config file pays for pydantic, which validates it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

CONFIG_FILE = "proctor.toml"
PYPROJECT_FILE = "pyproject.toml"


class ConfigView(Protocol):
    """The keys the static rules, `proctor check`'s discovery and the scaffold read (SPEC §2)."""

    @property
    def evaluation_dir(self) -> str: ...
    @property
    def data_dir(self) -> str: ...
    @property
    def command(self) -> str: ...
    @property
    def brief(self) -> str: ...
    @property
    def entry_point(self) -> str: ...
    @property
    def metric(self) -> str: ...
    @property
    def direction(self) -> str: ...
    @property
    def protected_paths(self) -> Sequence[str]: ...
    @property
    def model_fields_set(self) -> set[str]:
        """The keys the config file set (a fix may state a direction only when the config says it)."""
        ...


@dataclass(frozen=True)
class ConfigDefaults:
    """`Config()`'s values for the keys of `ConfigView`: the config of a workspace with no config file."""

    evaluation_dir: str = "kapso_evaluation"
    data_dir: str = "kapso_datasets"
    command: str = "python kapso_evaluation/evaluate.py"
    brief: str = "brief.md"
    entry_point: str = ""
    metric: str = ""
    direction: str = "maximize"
    protected_paths: tuple[str, ...] = field(default=())

    @property
    def model_fields_set(self) -> set[str]:
        return set()


DEFAULTS = ConfigDefaults()


def has_config_file(workspace: Path) -> bool:
    """Whether `core.config.load_config` has a file to validate: proctor.toml, or a pyproject.toml with a
    `tool.proctor` table (or one that is not valid TOML, which the validator reports)."""
    if (workspace / CONFIG_FILE).is_file():
        return True
    pyproject = workspace / PYPROJECT_FILE
    if not pyproject.is_file():
        return False
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True
    return pyproject_declares_config(text)


def pyproject_declares_config(text: str) -> bool:
    """Whether pyproject.toml text has a `tool.proctor` table to validate (or is not valid TOML, which the
    validator reports); without one the workspace's config is `DEFAULTS`."""
    import tomllib

    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return True
    return isinstance(tool, dict) and "proctor" in tool


def evaluator_entry(config: ConfigView) -> str | None:
    """The workspace-relative evaluator file named by `command` (`python X.py` or `python -m pkg.mod`)."""
    return _entry_of(config.command)


@functools.lru_cache(maxsize=64)
def _entry_of(command: str) -> str | None:
    """`evaluator_entry` of one command line (the editor asks on every keystroke)."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for index, word in enumerate(words):
        if word.endswith(".py"):
            return Path(word).as_posix().removeprefix("./")
        if word == "-m" and index + 1 < len(words):
            return words[index + 1].replace(".", "/") + ".py"
    return None
