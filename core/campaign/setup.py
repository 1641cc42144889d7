"""A campaign's setup: everything fixed before the first measurement, and the checkpoint it starts from.

The workspace is the repository's top directory (for a bare repository, the GitHub App's mirror, its git
directory: commits are read from the object store either way).

The baseline commit is materialized once; its config, command and suite are the only ones ever used (a
candidate cannot choose how it is measured). The fingerprint of those choices is compared on resume, so a
resumed campaign is measured the way it started.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core import __version__, secrets
from core.campaign import candidates as sources
from core.campaign.arguments import (
    CampaignArgs,
    campaign_sandbox,
    candidate_source,
    check_prompt_setup,
    iteration_evaluator,
    worker_count,
)
from core.campaign.config_source import ConfigSource, describe_source
from core.campaign.external import IterationEvaluator
from core.campaign.model import Direction
from core.campaign.state import CampaignState, Fingerprint, PlannedCandidate, save_state
from core.campaign.verdict import NoiseRule
from core.errors import CampaignError, ConfigError, GitError
from core.interpreter import ProjectPython, find_python
from core.registry import EvaluatorRef

if TYPE_CHECKING:
    from core.config import Config, LoadedConfig
    from core.integrity.manifest import SuiteSnapshot
    from core.jobs.queue import JobQueue
    from core.runner import SandboxChoice


@dataclass(frozen=True)
class CampaignSetup:
    """What every step of one campaign shares, fixed before anything is measured."""

    repo: Path
    campaign_id: str
    config: Config
    baseline_ref: str
    baseline_commit: str
    baseline_dir: Path
    snapshot: SuiteSnapshot
    sandbox: SandboxChoice
    work_root: Path
    parallel: int
    source: dict[str, Any]
    evaluator: IterationEvaluator | None
    policy: Literal["record", "raise"]
    config_source: ConfigSource | None = None
    python: ProjectPython | None = None
    warnings: tuple[str, ...] = ()
    # Measure on `proctor worker`s through this queue instead of the local pool (core/campaign/remote_measure.py).
    queue: JobQueue | None = None
    queue_repo: str = ""
    holdout: str = ""


def prepare(
    root: Path, cid: str, work_root: Path, stored: CampaignState | None, args: CampaignArgs
) -> tuple[CampaignSetup, CampaignState]:
    """Materialize the baseline, check everything that can be checked before a run, and checkpoint.

    Raises ProctorError for anything that stops the campaign from starting, in the order a user fixes them.
    """
    from core.integrity.guard import refuse_stale_result
    from core.integrity.manifest import snapshot
    from core.integrity.materialize import materialize
    from core.run.isolation import resolve_holdout

    baseline_ref, commit = _baseline_of(root, stored, args.baseline)
    baseline_dir = Path(tempfile.mkdtemp(prefix="baseline-", dir=work_root))  # no name a run can guess
    materialize(root, commit, baseline_dir)
    loaded = _baseline_config(baseline_dir, baseline_ref)
    config = loaded.config
    secrets.hide_configured(config.judge.api_key_env)  # gone from /proc/<pid>/environ before any run
    checkout = None if is_bare(root) else root
    python = find_python(config.python, checkout)
    provenance = describe_source(checkout, baseline_ref, commit, loaded, baseline_dir)
    refuse_stale_result(baseline_dir, config)  # IN006: before anything runs
    resolve_holdout(config.holdout_dir, root)  # a hold-out inside the workspace is refused up front
    suite = snapshot(baseline_dir / config.evaluation_dir, config)
    source = candidate_source(stored, config, commit, args, root)
    evaluator, identity, failure_policy = iteration_evaluator(stored, config, args)
    fingerprint = Fingerprint(
        evaluator_id=suite.evaluator_id,
        command=config.command,
        baseline_commit=commit,
        candidate_source=source,
        iteration_evaluator=identity,
        iteration_evaluator_failure_policy=failure_policy,
    )
    _refuse_changed(cid, stored, fingerprint)
    choice = campaign_sandbox(args.sandbox or config.campaign.sandbox)
    if source["kind"] == "prompt":
        check_prompt_setup(config)
    setup = CampaignSetup(
        repo=root,
        campaign_id=cid,
        config=config,
        baseline_ref=baseline_ref,
        baseline_commit=commit,
        baseline_dir=baseline_dir,
        snapshot=suite,
        sandbox=choice,
        work_root=work_root,
        parallel=worker_count(args.parallel, config),
        source=source,
        evaluator=evaluator,
        policy=failure_policy,
        config_source=provenance,
        python=python,
        warnings=_warnings(provenance, stored, python),
    )
    if stored is not None:
        return setup, _resumed_state(stored, setup, python)
    state = _new_state(setup, fingerprint, python)
    save_state(root, state)
    return setup, state


def _baseline_of(root: Path, stored: CampaignState | None, baseline: str | None) -> tuple[str, str]:
    """(ref, commit) of the baseline: on resume without --baseline, the one the campaign started with."""
    if stored is not None and baseline is None:
        return stored.baseline_ref, stored.fingerprint.baseline_commit
    ref = baseline or "HEAD"
    return ref, baseline_commit(root, ref)


def _baseline_config(baseline_dir: Path, baseline_ref: str) -> LoadedConfig:
    """The baseline's config; a bad one is reported at `<ref>:<path>`, where the user can find it."""
    from core.config import load_config

    try:
        return load_config(baseline_dir)
    except ConfigError as exc:
        where = f"{baseline_ref}:{exc.path.relative_to(baseline_dir).as_posix()}"
        raise ConfigError(where, exc.line, exc.key, exc.problem) from None


def _refuse_changed(cid: str, stored: CampaignState | None, fingerprint: Fingerprint) -> None:
    """A resumed campaign is measured the way it started, or not at all."""
    if stored is None:
        return
    changes = fingerprint.changes_from(stored.fingerprint)
    if changes:
        raise CampaignError(
            f"cannot resume campaign {cid!r}: {'; '.join(changes)}. Restore it, or start a new campaign "
            "(without --resume)"
        )


def _resumed_state(stored: CampaignState, setup: CampaignSetup, python: ProjectPython) -> CampaignState:
    return replace(
        stored,
        complete=False,
        sandbox=setup.sandbox.describe(),
        noise=noise_rule(setup.config),
        interpreter=python.to_json(),
    )


def _new_state(setup: CampaignSetup, fingerprint: Fingerprint, python: ProjectPython) -> CampaignState:
    """The first checkpoint: what is measured, how, and (for refs) every candidate planned up front."""
    name, direction, goal = measurement_protocol(setup.config, setup.baseline_dir)
    planned: tuple[PlannedCandidate, ...] = ()
    if setup.source["kind"] == "refs":
        resolved = sources.resolve_candidates(setup.repo, setup.source["refs"])
        planned = tuple(
            PlannedCandidate(i, r.ref, r.commit, setup.baseline_ref) for i, r in enumerate(resolved, start=1)
        )
    return CampaignState(
        campaign_id=setup.campaign_id,
        created_at=datetime.now(UTC).isoformat(),
        baseline_ref=setup.baseline_ref,
        fingerprint=fingerprint,
        evaluator=evaluator_identity(setup.repo, setup.snapshot.evaluator_id),
        metric_name=name,
        direction=direction,
        goal=goal,
        sandbox=setup.sandbox.describe(),
        planned=planned,
        noise=noise_rule(setup.config),
        proctor_version=__version__,
        interpreter=python.to_json(),
    )


def with_queue(setup: CampaignSetup, url: str, repo_source: str | None) -> CampaignSetup:
    """The setup measuring through a job queue: workers get the hold-out as the absolute path found here."""
    from core.jobs.queue import JobQueue
    from core.run.isolation import resolve_holdout

    if setup.source["kind"] == "prompt":
        raise CampaignError(
            "a prompt campaign cannot use --queue: its evaluators reach the judge through this machine"
        )
    queue = JobQueue(url)
    queue.check()
    return replace(
        setup,
        queue=queue,
        queue_repo=repo_source or str(setup.repo),
        holdout=resolve_holdout(setup.config.holdout_dir, setup.repo),
    )


def _warnings(source: ConfigSource, stored: CampaignState | None, python: ProjectPython) -> tuple[str, ...]:
    """What the first lines warn about: the working tree's config, and (on resume) a changed environment."""
    found = [source.warning] if source.warning else []
    before = stored.interpreter if stored is not None else {}
    if before and before.get("environment_id") != python.environment_id:
        found.append(
            f"the evaluator's Python environment changed since this campaign started: then "
            f"{before.get('path')} (Python {before.get('version')}, environment "
            f"{str(before.get('environment_id', ''))[:12]}), now {python.describe()}; scores measured before "
            "and after may not be comparable"
        )
    return tuple(found)


def noise_rule(config: Config) -> NoiseRule:
    """The config's rule for "better beyond noise" (checkpointed, so the scoreboard is derived the same)."""
    return NoiseRule(config.campaign.min_improvement, config.campaign.significance)


# ------------------------------------------------------------------------------------------------ the workspace and its baseline


def workspace_root(repo: Path) -> Path:
    """The repository's top directory; for a bare repository its git directory (commits are read from the
    object store either way, so a campaign needs no working tree)."""
    from core.integrity.git import run_git

    if not repo.is_dir():
        raise CampaignError(f"workspace {str(repo)!r} does not exist", path=repo)
    try:
        bare = run_git(repo, "rev-parse", "--is-bare-repository").strip() == "true"
        top = run_git(repo, "rev-parse", "--absolute-git-dir" if bare else "--show-toplevel").strip()
    except GitError:
        raise CampaignError(
            f"{str(repo)!r} is not a git repository (a campaign measures commits)", path=repo
        ) from None
    return Path(top).resolve()


def is_bare(root: Path) -> bool:
    """Whether `root` is a bare repository (then there is no working tree to read config or Python from)."""
    from core.integrity.git import run_git

    return run_git(root, "rev-parse", "--is-bare-repository").strip() == "true"


def baseline_commit(root: Path, ref: str) -> str:
    """The baseline's sha; a repository without any commit gets told what to do first."""
    from core.integrity.git import resolve_commit, run_git

    try:
        return resolve_commit(root, ref)
    except GitError:
        if not run_git(root, "rev-list", "-n", "1", "--all", check=False).strip():
            raise CampaignError(
                f"{root} has no commits yet: commit a baseline first (git add -A && git commit -m baseline); "
                "a campaign measures commits against it",
                path=root,
            ) from None
        raise


def measurement_protocol(config: Config, baseline_dir: Path) -> tuple[str, Direction, str]:
    """Metric name, direction and goal: the config first, then the brief's protocol (SPEC §3.2)."""
    name = config.metric
    direction: Direction = config.direction
    explicit_direction = "direction" in config.model_fields_set
    goal = ""
    protocol = _brief_protocol(config, baseline_dir)
    if protocol is not None:
        brief_metric, brief_direction, goal = protocol
        name = name or brief_metric
        if not explicit_direction and brief_direction in ("maximize", "minimize"):
            direction = "maximize" if brief_direction == "maximize" else "minimize"
    return name, direction, goal


def _brief_protocol(config: Config, baseline_dir: Path) -> tuple[str, str, str] | None:
    """(metric name, direction, goal) from the baseline's brief; None when it has none."""
    from core.brief import parse_brief

    try:
        text = (baseline_dir / config.brief).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    parsed = parse_brief(text)
    protocol = parsed.protocol
    metric = (protocol.metric_name or "") if protocol is not None else ""
    direction = protocol.direction.value if protocol is not None and protocol.direction is not None else ""
    goal = parsed.goal.text if parsed.goal is not None else ""
    return metric, direction, goal


def evaluator_identity(repo: Path, evaluator_id: str) -> EvaluatorRef:
    """The registered version whose id is the baseline suite's; version 0 when the suite is unregistered.

    Scores never cross a version boundary: the campaign's scores all carry this one ref.
    """
    from core.registry import load_registry

    for entry in load_registry(repo):
        if entry.evaluator_id == evaluator_id:
            return entry.ref
    return EvaluatorRef(0, evaluator_id, "provided")
