"""The task model as an evaluator reaches it: the endpoint and budget a campaign hands over in four environment
variables, a prompt run over inputs with the judge's model, and the answer parsed.

The evaluator and Proctor talk through these variables, the only judge-related ones an evaluator ever gets
(the environment is otherwise an allow-list, SPEC §4.3; `OPENAI_API_KEY` and the like never reach it):

- `PROCTOR_JUDGE_BASE_URL`: the judge proxy Proctor runs on the loopback interface for the campaign
  (`core/judge/proxy.py`), which forwards to the real endpoint (`PROCTOR_JUDGE_BASE_URL` in Proctor's own
  environment, else `[judge] base_url`) and adds the key;
- `PROCTOR_JUDGE_API_KEY`: the proxy's per-campaign token (never the endpoint's key);
- `PROCTOR_JUDGE_BUDGET_USD`: this run's share of what is left of the campaign's one budget;
- `PROCTOR_PROMPT_FEEDBACK`: where the evaluator writes its feedback document (`evaluator_feedback`).

Evaluators build their judge with `evaluator_settings()` and run a prompt with `run_prompt()`, so the campaign
side and the evaluator side agree on these variables.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core.errors import JudgeError

if TYPE_CHECKING:
    from core.config import JudgeConfig
    from core.judge import Judge, JudgeSettings

ENV_BASE_URL = "PROCTOR_JUDGE_BASE_URL"
ENV_API_KEY = "PROCTOR_JUDGE_API_KEY"
ENV_BUDGET = "PROCTOR_JUDGE_BUDGET_USD"
ENV_FEEDBACK = "PROCTOR_PROMPT_FEEDBACK"
EVALUATOR_ENV = (ENV_BASE_URL, ENV_API_KEY, ENV_BUDGET, ENV_FEEDBACK)

TASK_TEMPLATE_VERSION = "task-v1"


# ------------------------------------------------------------------------------------------ the endpoint


def resolve_base_url(config: JudgeConfig, environ: Mapping[str, str] | None = None) -> str:
    """`PROCTOR_JUDGE_BASE_URL` from the environment, else `[judge] base_url` ('' = the provider default)."""
    env = os.environ if environ is None else environ
    return env.get(ENV_BASE_URL, "").strip() or config.base_url


def check_teacher(config: JudgeConfig) -> None:
    """Fail before anything runs when the judge or teacher model has no known price (SPEC §7 Cost) or the
    teacher's endpoint needs a key Proctor does not have."""
    from core.judge import JudgeSettings
    from core.judge.client import resolve_api_key
    from core.judge.cost import price_for

    for model in dict.fromkeys((config.model, config.teacher_model)):
        price_for(model, {k: tuple(v) for k, v in config.prices.items()}, free=config.free)
    resolve_api_key(JudgeSettings.from_config(config, base_url=resolve_base_url(config) or None))


def evaluator_settings(
    workspace: Path | str = ".", environ: Mapping[str, str] | None = None
) -> JudgeSettings:
    """The judge settings an evaluator should use: `[judge]` from the workspace's config, the endpoint, key and
    budget share Proctor passed (when run by a campaign), and no answer cache (runs must be independent)."""
    from core.config import load_config
    from core.judge import JudgeSettings

    env = os.environ if environ is None else environ
    judge = load_config(Path(workspace)).config.judge
    budget = judge.budget_usd
    raw = env.get(ENV_BUDGET, "").strip()
    if raw:
        try:
            share = float(raw)
        except ValueError:
            share = math.nan
        if not math.isfinite(share) or share < 0:
            raise JudgeError(f"{ENV_BUDGET} must be a non-negative number of USD, found {raw!r}")
        budget = min(budget, share)
    settings = JudgeSettings.from_config(
        judge,
        base_url=resolve_base_url(judge, env) or None,
        api_key_env=ENV_API_KEY if env.get(ENV_API_KEY) else None,
        budget_usd=budget,
    )
    return replace(settings, cache_path=None)


# ------------------------------------------------------------------------------------------ running a prompt


@dataclass(frozen=True)
class TaskAnswer:
    """The task model's answer to one input: `output` is None when no answer came (budget, endpoint)."""

    output: str | None
    status: Literal["ok", "parse_failed", "budget", "error", "stopped"]
    problem: str | None = None


def task_messages(prompt: str, input_text: str) -> list[dict[str, str]]:
    """The prompt as the system message and the input as the user's; a prompt with `{input}` is filled in."""
    if "{input}" in prompt:
        return [{"role": "user", "content": prompt.replace("{input}", input_text)}]
    return [{"role": "system", "content": prompt}, {"role": "user", "content": input_text}]


def task_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"output": {"type": "string"}},
        "required": ["output"],
        "additionalProperties": False,
    }


def parse_task_output(text: str) -> str:
    """`{"output": "..."}` (structured output) or, from endpoints without it, the plain text."""
    from core.errors import AnswerError

    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except ValueError:
            value = None
        if isinstance(value, dict):
            output = value.get("output")
            if isinstance(output, str):
                return output.strip()
            raise AnswerError('the answer is a JSON object without a string "output"')
    if not stripped:
        raise AnswerError("the answer is empty")
    return stripped


def run_prompt(judge: Judge, prompt: str, inputs: Sequence[str]) -> list[TaskAnswer]:
    """Run `prompt` over `inputs` with the judge's model, its budget, concurrency and retries."""
    from core.judge.engine import Question

    questions = [
        (
            Question(
                messages=task_messages(prompt, text),
                template_version=TASK_TEMPLATE_VERSION,
                rotation="task",
                sample=0,
                schema_name="task_output",
                schema=task_schema(),
            ),
            parse_task_output,
        )
        for text in inputs
    ]
    answers = []
    for outcome in judge.ask_many(questions):
        value = outcome.value if isinstance(outcome.value, str) else None
        answers.append(TaskAnswer(value, outcome.status, outcome.problem))
    return answers
