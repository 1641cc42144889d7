"""Prompt candidates (SPEC §5.1, §7 Teacher, §10 "Prompt tasks and feedback"): a teacher model rewrites a prompt
file, every rewrite becomes a candidate, and the judge scores what the prompt produces.

Two callers share these pieces. A prompt campaign (`proctor campaign --prompt`) commits each rewrite and lets
the campaign's evaluator (which uses the judge) score it; the GitHub App's prompt job scores rewrites on the
hold-out part of feedback an application logged. Both pick the winner by the campaign's one rule.

- `prompt_file`: the prompt file checked in the baseline, read at a commit, each rewrite committed with git
  plumbing (no checkout, no worktree, no candidate code runs);
- `task_model`: the four environment variables between a campaign and its evaluators
  (`PROCTOR_JUDGE_BASE_URL`, `PROCTOR_JUDGE_API_KEY`, `PROCTOR_JUDGE_BUDGET_USD`, `PROCTOR_PROMPT_FEEDBACK`),
  `evaluator_settings()` and `run_prompt()` for evaluators, the task model's answer parsed;
- `evaluator_feedback`: the document an evaluator writes with its spend and its search-split judge run (the
  hold-out scores never enter it), and how the campaign reads it back;
- `driver`: the campaign side, `PromptDriver`: propose → commit → measure, checkpointing as it goes;
- `logged_feedback`: the App's optimization on logged feedback (the split, the teacher and judge loop, the
  winner), without I/O beyond the judge's endpoint.

The evaluator's environment is otherwise an allow-list (SPEC §4.3): the endpoint's key never reaches it. The
campaign's one budget (`[judge] budget_usd`) is shared by the teacher and every evaluator run; the judge proxy
(`core/judge/proxy.py`) holds all the runs of an iteration to what is left, whatever they do. Prompt campaigns
run at the `namespace` level like any other: the evaluator's sandbox gets the network (`evaluator_network`)
so that it reaches the proxy; the key stays in Proctor.
"""

from __future__ import annotations

from core.campaign.prompt_source.driver import DEFAULT_REWRITES, PromptDriver, PromptHost, source_spec
from core.campaign.prompt_source.evaluator_feedback import PromptFeedback, parse_feedback, write_feedback
from core.campaign.prompt_source.logged_feedback import (
    LoggedFeedback,
    Measured,
    Optimization,
    optimize,
    scoreboard,
    split_feedback,
)
from core.campaign.prompt_source.prompt_file import check_prompt_file, commit_rewrite, read_prompt
from core.campaign.prompt_source.task_model import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_BUDGET,
    ENV_FEEDBACK,
    EVALUATOR_ENV,
    TaskAnswer,
    check_teacher,
    evaluator_settings,
    run_prompt,
)

__all__ = [
    "DEFAULT_REWRITES",
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_BUDGET",
    "ENV_FEEDBACK",
    "EVALUATOR_ENV",
    "LoggedFeedback",
    "Measured",
    "Optimization",
    "PromptDriver",
    "PromptFeedback",
    "PromptHost",
    "TaskAnswer",
    "check_prompt_file",
    "check_teacher",
    "commit_rewrite",
    "evaluator_settings",
    "optimize",
    "parse_feedback",
    "read_prompt",
    "run_prompt",
    "scoreboard",
    "source_spec",
    "split_feedback",
    "write_feedback",
]
