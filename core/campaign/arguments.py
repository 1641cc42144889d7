"""`run_campaign`'s arguments, resolved against the baseline's config and, on resume, the checkpoint.

Each answer here is a decision without I/O of its own beyond reading the prompt file's commit: which candidate
source (refs, a generator, a prompt file), which iteration evaluator and failure policy, which sandbox, how many
workers. On resume an argument that is not given again means "as before".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core.campaign import candidates as sources
from core.campaign.external import (
    IterationEvaluator,
    callable_identity,
    load_evaluator,
    normalize_failure_policy,
)
from core.campaign.state import CampaignState
from core.errors import CampaignError

if TYPE_CHECKING:
    from core.config import Config
    from core.runner import SandboxChoice

SandboxLevel = Literal["auto", "process", "namespace"]


@dataclass(frozen=True)
class PromptArgs:
    """The prompt source's arguments to run_campaign (all None: not a prompt campaign, or as before)."""

    prompt_file: str | None = None
    task: str | None = None
    rewrites: int | None = None


@dataclass(frozen=True)
class CampaignArgs:
    """What the caller of run_campaign chose; None everywhere means "the config's, or as before"."""

    baseline: str | None = None
    candidates: str | Sequence[str] | None = None
    generator: str | None = None
    iterations: int | None = None
    parallel: int | None = None
    sandbox: str | None = None
    iteration_evaluator: IterationEvaluator | str | None = None
    policy: str | None = None
    prompt: PromptArgs = field(default_factory=PromptArgs)


def candidate_source(
    stored: CampaignState | None, config: Config, baseline_commit: str, args: CampaignArgs, root: Path
) -> dict[str, Any]:
    """The candidate source as recorded in the fingerprint; on resume, unset arguments mean "as before"."""
    prompt = args.prompt
    given = (args.candidates is not None, bool(args.generator), bool(prompt.prompt_file))
    if sum(1 for chosen in given if chosen) > 1:
        raise CampaignError("give one candidate source: refs, a generator or a prompt file, not several")
    if not prompt.prompt_file and (prompt.task is not None or prompt.rewrites is not None):
        raise CampaignError("--task and --rewrites need --prompt FILE (they belong to the prompt source)")
    if stored is not None and not any(given) and args.iterations is None:
        return dict(stored.fingerprint.candidate_source)
    if prompt.prompt_file:
        return _prompt_source(stored, config, baseline_commit, args, root)
    command = (
        args.generator if args.generator else (config.campaign.generator if args.candidates is None else "")
    )
    if command:
        count = args.iterations if args.iterations is not None else config.campaign.iterations
        if count <= 0:
            raise CampaignError("a generator needs --iterations N (N > 0): how many candidates to make")
        return {"kind": "generator", "command": command, "iterations": count, "parent": baseline_commit}
    if args.iterations:
        raise CampaignError(
            "--iterations needs --generator CMD or --prompt FILE (refs are measured once each)"
        )
    spec = args.candidates if args.candidates is not None else config.campaign.candidates
    return {"kind": "refs", "refs": sources.normalize_spec(spec)}


def _prompt_source(
    stored: CampaignState | None, config: Config, baseline_commit: str, args: CampaignArgs, root: Path
) -> dict[str, Any]:
    """The prompt source; resuming with --prompt again, what is not given again is as before."""
    from core.campaign import prompt_source

    prompt = args.prompt
    assert prompt.prompt_file is not None
    before = stored.fingerprint.candidate_source if stored is not None else {}
    before = before if before.get("kind") == "prompt" else {}
    count = args.iterations if args.iterations is not None else config.campaign.iterations
    if args.iterations is None and before:
        count = int(before.get("iterations", count))
    rewrites = prompt.rewrites
    if rewrites is None:
        rewrites = int(before.get("rewrites", prompt_source.DEFAULT_REWRITES))
    task = prompt.task if prompt.task is not None else str(before.get("task", ""))
    return prompt_source.source_spec(
        prompt_source.check_prompt_file(root, baseline_commit, prompt.prompt_file, config),
        iterations=count,
        rewrites=rewrites,
        task=task.strip(),
        parent=baseline_commit,
    )


def check_prompt_setup(config: Config) -> None:
    """Refuse models without a price and a missing teacher key before anything runs (the evaluators reach
    the judge through Proctor's proxy, with the network their sandbox gets for it)."""
    from core.campaign.prompt_source import check_teacher

    check_teacher(config.judge)


def iteration_evaluator(
    stored: CampaignState | None, config: Config, args: CampaignArgs
) -> tuple[IterationEvaluator | None, str, Literal["record", "raise"]]:
    """The external iteration evaluator, its identity for the fingerprint, and its failure policy."""
    given, policy = args.iteration_evaluator, args.policy
    spec: IterationEvaluator | str | None = (
        given if given is not None else (config.campaign.iteration_evaluator or None)
    )
    evaluator = load_evaluator(spec) if isinstance(spec, str) else spec
    failure_policy = normalize_failure_policy(
        policy if policy is not None else config.campaign.iteration_evaluator_failure_policy
    )
    if stored is not None and given is None and not config.campaign.iteration_evaluator and policy is None:
        # Resuming without naming the evaluator again: the identity check below says what is missing.
        failure_policy = normalize_failure_policy(stored.fingerprint.iteration_evaluator_failure_policy)
    identity = callable_identity(evaluator) if evaluator is not None else ""
    return evaluator, identity, failure_policy


def campaign_sandbox(level: str) -> SandboxChoice:
    """The campaign's sandbox: `process` (not isolated) only when asked for by name, never as a fallback."""
    from core.runner import choose_sandbox

    checked = _sandbox_level(level)
    choice = choose_sandbox(checked)
    if checked == "auto" and choice.level != "namespace":
        why = choice.reason.removeprefix("auto: ")
        raise CampaignError(
            f"no namespace sandbox works on this machine ({why}), and a campaign never falls back to running "
            "candidates not isolated: install bubblewrap (e.g. `apt-get install bubblewrap`), or set "
            '[campaign] sandbox = "process" in proctor.toml (or pass --sandbox process) to run not isolated'
        )
    return choice


def _sandbox_level(level: str) -> SandboxLevel:
    if level == "auto":
        return "auto"
    if level == "process":
        return "process"
    if level == "namespace":
        return "namespace"
    raise CampaignError(f"sandbox must be auto, process or namespace, found {level!r}")


def worker_count(parallel: int | None, config: Config) -> int:
    """How many candidates are measured at once: the argument, else the config; 0 means one per CPU."""
    workers = config.campaign.parallel if parallel is None else parallel
    if workers < 0:
        raise CampaignError(f"--parallel must be 0 (the number of CPUs) or more, found {workers}")
    return workers or (os.cpu_count() or 1)
