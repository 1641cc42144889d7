"""Workspace configuration (SPEC §2): `proctor.toml`, or `[tool.proctor]` in `pyproject.toml`.

Every key is optional. Unknown keys, wrong types and TOML syntax errors raise `ConfigError` naming the file,
line and key; the CF001 rule turns the same error into an editor diagnostic. What the static rules read lives
in `core.config_view` (no pydantic), so `proctor check` imports this module only for a config file.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.config_view import CONFIG_FILE as CONFIG_FILE
from core.config_view import PYPROJECT_FILE as PYPROJECT_FILE
from core.config_view import evaluator_entry as evaluator_entry
from core.errors import ConfigError


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class CampaignConfig(_Section):
    candidates: str | list[str] = Field(
        "refs/heads/candidate/*", description="A glob of refs (or a list of refs) to measure."
    )
    generator: str = Field("", description="A shell command that makes one candidate commit per run.")
    iterations: int = Field(0, ge=0, description="How many times the generator runs.")
    parallel: int = Field(0, ge=0, description="Candidates measured at once; 0 means the number of CPUs.")
    sandbox: Literal["auto", "process", "namespace"] = Field(
        "auto", description="How evaluator runs are isolated; auto picks the strongest that works."
    )
    min_improvement: float = Field(
        0.0, ge=0, description="A winner must beat the baseline by more than this (absolute)."
    )
    significance: float = Field(
        2.0, ge=0, description="...and by more than this many standard errors, when one is known."
    )
    iteration_evaluator: str = Field("", description="An external iteration evaluator, `module:function`.")
    iteration_evaluator_failure_policy: Literal["record", "raise"] = "record"


class JudgeConfig(_Section):
    model: str = "gpt-4o-mini"
    teacher_model: str = "gpt-4o"
    base_url: str = Field("", description="Any OpenAI-compatible endpoint; empty means the provider default.")
    api_key_env: str = "OPENAI_API_KEY"
    criteria: str = "accuracy, completeness, conciseness"
    scale: Literal["0-1", "1-5", "0-10"] = "0-1"
    samples: int = Field(3, ge=1)
    budget_usd: float = Field(2.50, ge=0)
    prices: dict[str, list[float]] = Field(
        default_factory=dict, description='{"model": [usd_per_1M_input, usd_per_1M_output]}'
    )
    free: bool = Field(False, description="The endpoint costs nothing (a local server): no price is needed.")
    concurrency: int = Field(8, ge=1)
    weight: float = Field(
        0.5, ge=0, le=1, description="Blend weight of the LLM score vs deterministic metrics."
    )

    @field_validator("prices")
    @classmethod
    def _two_prices(cls, value: dict[str, list[float]]) -> dict[str, list[float]]:
        for model, pair in value.items():
            if len(pair) != 2 or any(p < 0 for p in pair):
                raise ValueError(
                    f"prices[{model!r}] must be [usd_per_1M_input, usd_per_1M_output], got {pair!r}"
                )
        return value


class GithubConfig(_Section):
    comment: Literal["update", "new", "off"] = "update"
    conclusion: Literal["regression", "rejected-only", "never"] = "regression"
    deliver: bool = True
    fork_prs: Literal["approval", "never", "always"] = "approval"
    regression_tolerance: float = Field(
        0.0, ge=0, description="How much worse than the base a PR head may score before the check fails."
    )


TASK_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


class PromptTaskConfig(_Section):
    """One `[[prompt_task]]`: a prompt the GitHub App optimizes once enough feedback on it has arrived."""

    name: str = Field(pattern=TASK_NAME, description="The task's id in the feedback API's URL.")
    prompt_file: str = Field(min_length=1, description="The prompt file, relative to the repository root.")
    description: str = Field("", description="What the task does: the teacher reads it.")
    criteria: str = Field("accuracy, completeness, conciseness", min_length=1)
    scale: Literal["0-1", "1-5", "0-10"] = "0-1"
    feedback_threshold: int = Field(50, ge=1, description="New feedback items that start an optimization.")
    judge_model: str = Field("gpt-4o-mini", min_length=1)
    teacher_model: str = Field("gpt-4o", min_length=1)
    budget_usd: float = Field(2.50, ge=0, description="One hard cap for the teacher and the judge together.")


class Config(_Section):
    evaluation_dir: str = Field("kapso_evaluation", description="The suite: protected, fingerprinted.")
    data_dir: str = Field("kapso_datasets", description="Protected input data.")
    command: str = Field(
        "python kapso_evaluation/evaluate.py", description="The evaluator, run from the root."
    )
    brief: str = Field("brief.md", description="The brief; any *.brief.md is read too.")
    entry_point: str = Field("", description="The candidate entry point the evaluator calls (for verify).")
    metric: str = Field("", description="Expected metric name; default from the brief's Measured by.")
    direction: Literal["maximize", "minimize"] = "maximize"
    timeout_s: float = Field(600, gt=0, description="One full evaluator run.")
    fast_budget_s: float = Field(60, gt=0, description="The contract's 'well under a minute'.")
    determinism_tolerance: float = Field(0.0, ge=0, description="Allowed |difference| between repeated runs.")
    protected_paths: list[str] = Field(default_factory=list)
    python: str = Field(
        "",
        description="The evaluator's interpreter (a path, or a name on PATH; \"proctor\" = Proctor's own); "
        "default: the project's .venv/venv, VIRTUAL_ENV, CONDA_PREFIX, python3 on PATH.",
    )
    holdout_dir: str = Field(
        "",
        description="Hold-out data outside the workspace, bound read-only into the evaluator's sandbox only.",
    )
    candidate_reads: list[str] = Field(
        default_factory=list, description="Protected files the candidate may read (read-only) in its sandbox."
    )
    candidate_network: bool = Field(False, description="Network for the candidate's sandbox.")
    evaluator_network: bool = Field(False, description="Network for the evaluator's sandbox.")
    campaign: CampaignConfig = Field(default_factory=CampaignConfig)
    judge: JudgeConfig = Field(default_factory=JudgeConfig)
    github: GithubConfig = Field(default_factory=GithubConfig)
    prompt_task: list[PromptTaskConfig] = Field(default_factory=list)

    @field_validator("prompt_task")
    @classmethod
    def _unique_tasks(cls, value: list[PromptTaskConfig]) -> list[PromptTaskConfig]:
        names = [task.name for task in value]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"each [[prompt_task]] needs its own name; {', '.join(twice)} is used twice")
        return value

    def prompt_task_named(self, name: str) -> PromptTaskConfig | None:
        return next((task for task in self.prompt_task if task.name == name), None)


@dataclass(frozen=True)
class LoadedConfig:
    """The config and where it came from (None when the workspace has no config file)."""

    config: Config
    path: Path | None


def parse_config_text(text: str, path: Path | str, *, pyproject: bool = False) -> Config:
    """Parse proctor.toml text (or pyproject.toml text, reading `[tool.proctor]`). Raises ConfigError."""
    config, problems = validate_config_text(text, path, pyproject=pyproject)
    if problems:
        raise problems[0]
    assert config is not None
    return config


def validate_config_text(
    text: str, path: Path | str, *, pyproject: bool = False
) -> tuple[Config | None, list[ConfigError]]:
    """The config, or every problem in it (sorted by line) so the editor can show them all at once."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"at line (\d+)", str(exc))
        line = int(match.group(1)) if match else 1
        return None, [ConfigError(path, line, "", f"invalid TOML: {exc}")]
    prefix: tuple[str, ...] = ()
    if pyproject:
        tool = data.get("tool", {})
        data = tool.get("proctor", {}) if isinstance(tool, dict) else {}
        prefix = ("tool", "proctor")
        if not isinstance(data, dict):
            return None, [ConfigError(path, _locate(text, prefix), "tool.proctor", "must be a table")]
    try:
        return Config.model_validate(data), []
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(str(p) for p in err["loc"])
            if err["type"] == "extra_forbidden":
                problem = "unknown key"
            else:
                problem = f"{err['msg']} (found {err.get('input')!r})"
            problems.append(ConfigError(path, _locate(text, prefix + loc), ".".join(loc), problem))
        return None, sorted(problems, key=lambda p: p.line)


def load_config(workspace: Path) -> LoadedConfig:
    """Read the workspace's config: proctor.toml wins over pyproject.toml's [tool.proctor]."""
    for name, pyproject in ((CONFIG_FILE, False), (PYPROJECT_FILE, True)):
        candidate = workspace / name
        if not candidate.is_file():
            continue
        try:
            text = candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(candidate, 0, "", f"cannot read: {exc}") from None
        if pyproject:
            config = parse_config_text(text, candidate, pyproject=True)
            if "proctor" not in _tool_tables(text):
                continue
            return LoadedConfig(config, candidate)
        return LoadedConfig(parse_config_text(text, candidate), candidate)
    return LoadedConfig(Config(), None)


def _tool_tables(text: str) -> set[str]:
    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return set()
    return set(tool) if isinstance(tool, dict) else set()


_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")


_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([^\[\]]+?)\s*\]\]\s*(?:#.*)?$")


def _locate_in_array(text: str, name: str, index: int, key: str) -> int:
    """The line of `key` in the `index`-th `[[name]]` table (or that header's line), 0 when not found."""
    seen, header = -1, 0
    for number, line in enumerate(text.splitlines(), start=1):
        array = _ARRAY_HEADER.match(line)
        if array or _HEADER.match(line):
            if seen == index and header:
                break
            if array and array.group(1).strip() == name:
                seen += 1
                header = number if seen == index else header
            continue
        match = _KEY.match(line)
        if seen == index and header and match and match.group(1).strip().strip("\"'") == key:
            return number
    return header


def _locate(text: str, loc: tuple[str, ...]) -> int:
    """1-based line where the key at `loc` is written; its table header or 1 when not found."""
    if not loc:
        return 1
    if len(loc) >= 2 and loc[-2].isdigit() and len(loc[-2]) < 6:
        found = _locate_in_array(text, loc[-3] if len(loc) >= 3 else loc[0], int(loc[-2]), loc[-1])
        if found:
            return found
    table: tuple[str, ...] = ()
    best = 0
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            table = tuple(part.strip().strip("\"'") for part in header.group(1).split("."))
            if table == loc[: len(table)] and len(table) == len(loc):
                best = best or number
            elif table == loc[:-1] and not best:
                best = number
            continue
        key = _KEY.match(line)
        if key is None:
            continue
        full = table + tuple(part.strip().strip("\"'") for part in key.group(1).split("."))
        if full == loc[: len(full)]:
            return number
    return best or 1


def dump_defaults() -> dict[str, Any]:
    return Config().model_dump()


def config_without_problems(text: str, *, pyproject: bool = False) -> Config:
    """The config with every key that has a problem left at its default: what `proctor check` lints with
    when the file has errors (each one a CF001), so one typo does not lose `command` or `evaluation_dir`."""
    try:
        data: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return Config()
    if pyproject:
        tool = data.get("tool", {})
        data = tool.get("proctor", {}) if isinstance(tool, dict) else {}
    for _attempt in range(3):
        if not isinstance(data, dict):
            return Config()
        try:
            return Config.model_validate(data)
        except ValidationError as exc:
            data = _without(data, [err["loc"] for err in exc.errors()])
    return Config()


def _without(data: dict[str, Any], locs: list[tuple[int | str, ...]]) -> dict[str, Any]:
    """`data` without the keys at `locs` (a key of a section such as `campaign.iterations`, else the
    top-level key the problem is under)."""
    pruned = {key: dict(value) if isinstance(value, dict) else value for key, value in data.items()}
    for loc in locs:
        top = str(loc[0]) if loc else ""
        section = pruned.get(top)
        if len(loc) >= 2 and isinstance(section, dict) and str(loc[1]) in section:
            del section[str(loc[1])]
        else:
            pruned.pop(top, None)
    return pruned
