"""`run_campaign`: measure candidates against a baseline under one evaluator version (SPEC §5).

The parent process plans, schedules measurements on a process pool, runs the external iteration evaluator,
appends history and checkpoints after every candidate; workers only measure (core/campaign/worker.py). The
baseline's config, command and suite are the only ones ever used: a candidate cannot choose how it is measured.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core import __version__, secrets
from core.atomic import atomic_write_json, atomic_write_text
from core.campaign import candidates as sources
from core.campaign.config_source import ConfigSource, describe_source
from core.campaign.external import (
    CandidateNode,
    ExternalOutcome,
    IterationEvaluationContext,
    IterationEvaluator,
    callable_identity,
    load_evaluator,
    normalize_failure_policy,
    run_external,
)
from core.campaign.history import append_history, to_experiment_record
from core.campaign.model import (
    CampaignResult,
    CandidateRecord,
    Direction,
    compare_rows,
    pick_winner,
)
from core.campaign.state import (
    CampaignState,
    Fingerprint,
    PlannedCandidate,
    campaign_dir,
    check_campaign_id,
    latest_campaign,
    load_state,
    new_campaign_id,
    save_state,
    state_path,
)
from core.campaign.verdict import NoiseRule
from core.campaign.worker import MeasureJob, init_worker, measure
from core.errors import CampaignError, ConfigError, GitError
from core.interpreter import ProjectPython, find_python
from core.registry import EvaluatorRef
from core.state_root import ensure_writable
from core.treewalk import remove_tree

if TYPE_CHECKING:
    from core.config import Config
    from core.integrity.manifest import SuiteSnapshot
    from core.jobs.queue import JobQueue
    from core.runner import SandboxChoice

DELIVERED_PREFIX = "proctor/delivered"
_MAX_POOL_RETRIES = 2


@dataclass(frozen=True)
class ProgressEvent:
    """What a progress display needs after each step: counts, and the record that just finished."""

    kind: Literal["start", "generating", "finished"]
    campaign_id: str
    total: int
    done: int
    running: int
    scored: int
    rejected: int
    failed: int
    record: CandidateRecord | None = None
    baseline: CandidateRecord | None = None
    message: str = ""
    warnings: tuple[str, ...] = ()


ProgressCallback = Callable[[ProgressEvent], None]


@dataclass(frozen=True)
class _Setup:
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
    # Measure on `proctor worker`s through this queue instead of the local pool (core/jobs/campaign.py).
    queue: JobQueue | None = None
    queue_repo: str = ""
    holdout: str = ""


def run_campaign(
    repo: Path | str,
    *,
    baseline: str | None = None,
    candidates: str | Sequence[str] | None = None,
    generator: str | None = None,
    iterations: int | None = None,
    parallel: int | None = None,
    sandbox: str | None = None,
    resume: bool = False,
    deliver: bool = False,
    campaign_id: str | None = None,
    iteration_evaluator: IterationEvaluator | str | None = None,
    iteration_evaluator_failure_policy: str | None = None,
    progress: ProgressCallback | None = None,
    prompt_file: str | None = None,
    task: str | None = None,
    rewrites: int | None = None,
    queue: str | None = None,
    queue_repo: str | None = None,
) -> CampaignResult:
    """Run (or, with `resume`, continue) a campaign over `repo` and return its result.

    Unset arguments come from the baseline commit's config (`[campaign]`), or on resume from the checkpoint.
    `baseline` defaults to HEAD; `parallel` 0 means the number of CPUs. Raises ProctorError for anything that
    stops the campaign from starting (exit 2 in the CLI); candidates' own failures are records, not errors.
    `prompt_file` (with `iterations`, `rewrites` per iteration and an optional `task`) selects the prompt source
    (core/campaign/prompt_source.py). `queue` (redis://… or sqlite:///…) sends the measurements to
    `proctor worker`s, which read the commits from `queue_repo` (a git URL or shared path; default `repo`).
    """
    root = _workspace(Path(repo))
    ensure_writable(root)  # a read-only checkout: say where state goes before anything runs
    stored: CampaignState | None = None
    if resume:
        cid = check_campaign_id(campaign_id) if campaign_id else latest_campaign(root)
        stored = load_state(root, cid)
    else:
        cid = check_campaign_id(campaign_id or new_campaign_id())
        if state_path(root, cid).exists():
            raise CampaignError(
                f"campaign {cid!r} already exists in {campaign_dir(root, cid)}: continue it with --resume, "
                "or choose another --campaign-id"
            )
    with _work_root(cid) as work_root:
        setup, state = _prepare(
            root,
            cid,
            work_root,
            stored=stored,
            baseline=baseline,
            candidates=candidates,
            generator=generator,
            iterations=iterations,
            parallel=parallel,
            sandbox=sandbox,
            iteration_evaluator=iteration_evaluator,
            policy=iteration_evaluator_failure_policy,
            prompt=_PromptArgs(prompt_file, task, rewrites),
        )
        if queue:
            setup = _with_queue(setup, queue, queue_repo)
        scheduler = _Scheduler(setup, state, progress)
        state = scheduler.run()
    result = build_result(state, root)
    if deliver and result.winner is not None and result.winner.commit is not None:
        branch = f"{DELIVERED_PREFIX}/{cid}"
        from core.integrity.git import run_git

        run_git(root, "update-ref", f"refs/heads/{branch}", result.winner.commit)
        state = replace(state, delivered_branch=branch)
        result = replace(result, delivered_branch=branch)
    finished = datetime.now(UTC).isoformat()
    state = replace(state, complete=True, finished_at=finished)
    result = replace(result, finished_at=finished)
    save_state(root, state)
    write_outputs(result)
    return result


# ------------------------------------------------------------------------------------------------ setup


def _workspace(repo: Path) -> Path:
    """The repository's top directory; for a bare repository its git directory (commits are read from the
    object store either way, so a campaign needs no working tree)."""
    from core.integrity.git import run_git

    if not repo.is_dir():
        raise CampaignError(f"workspace {str(repo)!r} does not exist")
    try:
        bare = run_git(repo, "rev-parse", "--is-bare-repository").strip() == "true"
        top = run_git(repo, "rev-parse", "--absolute-git-dir" if bare else "--show-toplevel").strip()
    except GitError:
        raise CampaignError(f"{str(repo)!r} is not a git repository (a campaign measures commits)") from None
    return Path(top).resolve()


def is_bare(root: Path) -> bool:
    from core.integrity.git import run_git

    return run_git(root, "rev-parse", "--is-bare-repository").strip() == "true"


def _baseline_commit(root: Path, ref: str) -> str:
    """The baseline's sha; a repository without any commit gets told what to do first."""
    from core.integrity.git import resolve_commit, run_git

    try:
        return resolve_commit(root, ref)
    except GitError:
        if not run_git(root, "rev-list", "-n", "1", "--all", check=False).strip():
            raise CampaignError(
                f"{root} has no commits yet: commit a baseline first (git add -A && git commit -m baseline); "
                "a campaign measures commits against it"
            ) from None
        raise


@contextlib.contextmanager
def _work_root(cid: str) -> Any:
    """A private temp dir for materialized trees; leftovers of killed campaigns (marked) are removed."""
    from core.campaign.tempdirs import make_work_root, remove_orphans

    remove_orphans()
    path = make_work_root(cid)
    path.chmod(0o300)  # its entries have random names, and it cannot be listed (by anyone but root)
    try:
        yield path
    finally:
        remove_tree(path)


def _prepare(
    root: Path,
    cid: str,
    work_root: Path,
    *,
    stored: CampaignState | None,
    baseline: str | None,
    candidates: str | Sequence[str] | None,
    generator: str | None,
    iterations: int | None,
    parallel: int | None,
    sandbox: str | None,
    iteration_evaluator: IterationEvaluator | str | None,
    policy: str | None,
    prompt: _PromptArgs | None = None,
) -> tuple[_Setup, CampaignState]:
    from core.config import load_config
    from core.integrity.guard import refuse_stale_result
    from core.integrity.manifest import snapshot
    from core.integrity.materialize import materialize
    from core.run.isolation import resolve_holdout

    if stored is not None and baseline is None:
        baseline_ref, baseline_commit = stored.baseline_ref, stored.fingerprint.baseline_commit
    else:
        baseline_ref = baseline or "HEAD"
        baseline_commit = _baseline_commit(root, baseline_ref)
    baseline_dir = Path(tempfile.mkdtemp(prefix="baseline-", dir=work_root))  # no name a run can guess
    materialize(root, baseline_commit, baseline_dir)
    try:
        loaded = load_config(baseline_dir)
    except ConfigError as exc:
        where = f"{baseline_ref}:{exc.path.relative_to(baseline_dir).as_posix()}"
        raise ConfigError(where, exc.line, exc.key, exc.problem) from None
    config = loaded.config
    secrets.hide_configured(config.judge.api_key_env)  # gone from /proc/<pid>/environ before any run
    python = find_python(config.python, None if is_bare(root) else root)
    provenance = describe_source(
        None if is_bare(root) else root, baseline_ref, baseline_commit, loaded, baseline_dir
    )
    refuse_stale_result(baseline_dir, config)  # IN006: before anything runs
    resolve_holdout(config.holdout_dir, root)  # a hold-out inside the workspace is refused up front
    suite = snapshot(baseline_dir / config.evaluation_dir, config)
    source = _candidate_source(
        stored, config, baseline_commit, candidates, generator, iterations, prompt or _PromptArgs(), root
    )
    evaluator, identity, failure_policy = _iteration_evaluator(stored, config, iteration_evaluator, policy)
    fingerprint = Fingerprint(
        evaluator_id=suite.evaluator_id,
        command=config.command,
        baseline_commit=baseline_commit,
        candidate_source=source,
        iteration_evaluator=identity,
        iteration_evaluator_failure_policy=failure_policy,
    )
    if stored is not None:
        changes = fingerprint.changes_from(stored.fingerprint)
        if changes:
            raise CampaignError(
                f"cannot resume campaign {cid!r}: {'; '.join(changes)}. Restore it, or start a new campaign "
                "(without --resume)"
            )
    choice = _campaign_sandbox(_sandbox_level(sandbox or config.campaign.sandbox))
    if source["kind"] == "prompt":
        _check_prompt_setup(config)
    workers = config.campaign.parallel if parallel is None else parallel
    if workers < 0:
        raise CampaignError(f"--parallel must be 0 (the number of CPUs) or more, found {workers}")
    setup = _Setup(
        repo=root,
        campaign_id=cid,
        config=config,
        baseline_ref=baseline_ref,
        baseline_commit=baseline_commit,
        baseline_dir=baseline_dir,
        snapshot=suite,
        sandbox=choice,
        work_root=work_root,
        parallel=workers or (os.cpu_count() or 1),
        source=source,
        evaluator=evaluator,
        policy=failure_policy,
        config_source=provenance,
        python=python,
        warnings=_warnings(provenance, stored, python),
    )
    if stored is not None:
        return setup, replace(
            stored,
            complete=False,
            sandbox=choice.describe(),
            noise=_noise_rule(config),
            interpreter=python.to_json(),
        )
    name, direction, goal = _protocol(config, baseline_dir)
    planned: tuple[PlannedCandidate, ...] = ()
    if source["kind"] == "refs":
        resolved = sources.resolve_candidates(root, source["refs"])
        planned = tuple(
            PlannedCandidate(i, r.ref, r.commit, baseline_ref) for i, r in enumerate(resolved, start=1)
        )
    state = CampaignState(
        campaign_id=cid,
        created_at=datetime.now(UTC).isoformat(),
        baseline_ref=baseline_ref,
        fingerprint=fingerprint,
        evaluator=evaluator_identity(root, suite.evaluator_id),
        metric_name=name,
        direction=direction,
        goal=goal,
        sandbox=choice.describe(),
        planned=planned,
        noise=_noise_rule(config),
        proctor_version=__version__,
        interpreter=python.to_json(),
    )
    save_state(root, state)
    return setup, state


def _with_queue(setup: _Setup, url: str, repo_source: str | None) -> _Setup:
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


def _noise_rule(config: Config) -> NoiseRule:
    return NoiseRule(config.campaign.min_improvement, config.campaign.significance)


def _campaign_sandbox(level: Literal["auto", "process", "namespace"]) -> SandboxChoice:
    """The campaign's sandbox: `process` (not isolated) only when asked for by name, never as a fallback."""
    from core.runner import choose_sandbox

    choice = choose_sandbox(level)
    if level == "auto" and choice.level != "namespace":
        why = choice.reason.removeprefix("auto: ")
        raise CampaignError(
            f"no namespace sandbox works on this machine ({why}), and a campaign never falls back to running "
            "candidates not isolated: install bubblewrap (e.g. `apt-get install bubblewrap`), or set "
            '[campaign] sandbox = "process" in proctor.toml (or pass --sandbox process) to run not isolated'
        )
    return choice


def _sandbox_level(level: str) -> Literal["auto", "process", "namespace"]:
    if level == "auto":
        return "auto"
    if level == "process":
        return "process"
    if level == "namespace":
        return "namespace"
    raise CampaignError(f"sandbox must be auto, process or namespace, found {level!r}")


@dataclass(frozen=True)
class _PromptArgs:
    """The prompt source's arguments to run_campaign (all None: not a prompt campaign, or as before)."""

    prompt_file: str | None = None
    task: str | None = None
    rewrites: int | None = None


def _candidate_source(
    stored: CampaignState | None,
    config: Config,
    baseline_commit: str,
    candidates: str | Sequence[str] | None,
    generator: str | None,
    iterations: int | None,
    prompt: _PromptArgs | None = None,
    root: Path | None = None,
) -> dict[str, Any]:
    """The candidate source as recorded in the fingerprint; on resume, unset arguments mean "as before"."""
    prompt = prompt or _PromptArgs()
    if sum(1 for given in (candidates is not None, bool(generator), bool(prompt.prompt_file)) if given) > 1:
        raise CampaignError("give one candidate source: refs, a generator or a prompt file, not several")
    if not prompt.prompt_file and (prompt.task is not None or prompt.rewrites is not None):
        raise CampaignError("--task and --rewrites need --prompt FILE (they belong to the prompt source)")
    if (
        stored is not None
        and candidates is None
        and not generator
        and iterations is None
        and not prompt.prompt_file
    ):
        return dict(stored.fingerprint.candidate_source)
    if prompt.prompt_file:
        from core.campaign import prompt_source

        assert root is not None
        # Resuming with --prompt again: what is not given again is as before.
        before = stored.fingerprint.candidate_source if stored is not None else {}
        before = before if before.get("kind") == "prompt" else {}
        count = iterations if iterations is not None else config.campaign.iterations
        if iterations is None and before:
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
    command = generator if generator else (config.campaign.generator if candidates is None else "")
    if command:
        count = iterations if iterations is not None else config.campaign.iterations
        if count <= 0:
            raise CampaignError("a generator needs --iterations N (N > 0): how many candidates to make")
        return {"kind": "generator", "command": command, "iterations": count, "parent": baseline_commit}
    if iterations:
        raise CampaignError(
            "--iterations needs --generator CMD or --prompt FILE (refs are measured once each)"
        )
    spec = candidates if candidates is not None else config.campaign.candidates
    return {"kind": "refs", "refs": sources.normalize_spec(spec)}


def _check_prompt_setup(config: Config) -> None:
    """Refuse models without a price and a missing teacher key before anything runs (the evaluators reach
    the judge through Proctor's proxy, with the network their sandbox gets for it)."""
    from core.campaign.prompt_source import check_teacher

    check_teacher(config.judge)


def _iteration_evaluator(
    stored: CampaignState | None,
    config: Config,
    given: IterationEvaluator | str | None,
    policy: str | None,
) -> tuple[IterationEvaluator | None, str, Literal["record", "raise"]]:
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


def _protocol(config: Config, baseline_dir: Path) -> tuple[str, Direction, str]:
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


# ------------------------------------------------------------------------------------------------ running


class _Scheduler:
    """Runs the measurements; owns the pool and is the only writer of state and history."""

    def __init__(self, setup: _Setup, state: CampaignState, progress: ProgressCallback | None) -> None:
        self.setup = setup
        self.state = state
        self.progress = progress
        self.pool: cf.ProcessPoolExecutor | None = None
        self.running = 0
        self.job_env: dict[int, Mapping[str, str]] = {}
        self.record_hook: Callable[[CandidateRecord], None] | None = None

    def run(self) -> CampaignState:
        try:
            source, python = self.setup.config_source, self.setup.python
            line = "; ".join(
                part
                for part in (source.line if source else "", f"python {python.describe()}" if python else "")
                if part
            )
            self._emit("start", message=line, warnings=self.setup.warnings)
            if self.setup.source["kind"] == "generator":
                self._run_generator()
            elif self.setup.source["kind"] == "prompt":
                self._run_prompt()
            else:
                jobs = [] if self.state.baseline is not None else [self._baseline_job()]
                done = self.state.finished_indexes()
                jobs += [self._job(p) for p in self.state.planned if p.index not in done and p.commit]
                self._measure_all(jobs)
        except BaseException:
            self._abort()
            raise
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        return self.state

    def _abort(self) -> None:
        """Interrupted (Ctrl-C, policy `raise`): stop now. Workers get SIGTERM and kill their evaluators;
        the checkpoint already holds every finished candidate, so the campaign resumes from there."""
        if self.pool is None:
            return
        workers = list(getattr(self.pool, "_processes", {}).values())
        for process in workers:
            with contextlib.suppress(OSError, AttributeError):
                process.terminate()
        self.pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            with contextlib.suppress(OSError, AttributeError, AssertionError):
                process.join(timeout=5)

    # -- jobs

    def _baseline_job(self) -> MeasureJob:
        s = self.setup
        return self._job(PlannedCandidate(0, s.baseline_ref, s.baseline_commit, ""))

    def _job(self, planned: PlannedCandidate) -> MeasureJob:
        s = self.setup
        assert planned.commit is not None
        return MeasureJob(
            repo=s.repo,
            index=planned.index,
            ref=planned.ref,
            commit=planned.commit,
            parent_ref=planned.parent_ref,
            baseline_commit=s.baseline_commit,
            baseline_dir=s.baseline_dir,
            suite_snapshot=s.snapshot,
            config=s.config,
            sandbox=s.sandbox,
            work_root=s.work_root,
            extra_env=tuple(sorted(self.job_env.get(planned.index, {}).items())),
            evaluator_network=s.source["kind"] == "prompt",  # to reach the judge proxy
            interpreter=s.python.sandbox_interpreter() if s.python is not None else None,
        )

    def _pool(self) -> cf.ProcessPoolExecutor:
        if self.pool is None:
            self.pool = cf.ProcessPoolExecutor(
                max_workers=self.setup.parallel,
                mp_context=multiprocessing.get_context("fork"),
                initializer=init_worker,
                initargs=(os.getpid(),),
            )
        return self.pool

    def _measure_all(self, jobs: list[MeasureJob]) -> None:
        """Measure `jobs` `parallel` at a time; a worker that dies is retried in a fresh pool, then failed."""
        if self.setup.queue is not None:
            self._measure_queued(self.setup.queue, jobs)
            return
        attempts: dict[int, int] = {}
        queue = list(jobs)
        while queue:
            futures = {self._pool().submit(measure, job): job for job in queue}
            queue = []
            self.running = len(futures)
            for future in cf.as_completed(futures):
                job = futures[future]
                self.running = max(0, self.running - 1)
                try:
                    record = future.result()
                except BrokenProcessPool:
                    attempts[job.index] = attempts.get(job.index, 0) + 1
                    if attempts[job.index] <= _MAX_POOL_RETRIES:
                        queue.append(job)
                        continue
                    record = _died(job)
                except Exception as exc:  # whatever one candidate does, it is that candidate's failure
                    record = _died(job, f"could not measure: {type(exc).__name__}: {exc}")
                self._finish(record)
            if queue and self.pool is not None:
                self.pool.shutdown(wait=True, cancel_futures=True)
                self.pool = None
        self.running = 0

    def _measure_queued(self, queue: JobQueue, jobs: list[MeasureJob]) -> None:
        """Measure `jobs` on `proctor worker`s; each result is recorded here, then dropped from the queue."""
        from core.jobs.campaign import measure_on_queue

        s = self.setup
        self.running = len(jobs)
        for record, key in measure_on_queue(queue, jobs, s.queue_repo, s.campaign_id, s.holdout):
            self.running = max(0, self.running - 1)
            self._finish(record)
            queue.forget(key)
        self.running = 0

    def _run_generator(self) -> None:
        s = self.setup
        if self.state.baseline is None:
            self._measure_all([self._baseline_job()])
        planned = {p.index: p for p in self.state.planned}
        for iteration in range(1, int(s.source["iterations"]) + 1):
            if iteration in self.state.finished_indexes():
                continue
            plan = planned.get(iteration)
            if plan is None or plan.commit is None:
                plan = self._generate(iteration)
            if plan.commit is None:
                continue  # _generate recorded the failed candidate
            self._measure_all([self._job(plan)])

    def _run_prompt(self) -> None:
        from core.campaign.prompt_source import PromptDriver

        s = self.setup
        driver = PromptDriver(
            self,
            repo=s.repo,
            campaign_id=s.campaign_id,
            config=s.config,
            source=s.source,
            baseline_ref=s.baseline_ref,
            baseline_commit=s.baseline_commit,
        )
        self.record_hook = driver.before_record
        try:
            driver.run()
        finally:
            self.record_hook = None

    # -- the PromptHost interface (core/campaign/prompt_source.py)

    def measure_planned(
        self, plans: Sequence[PlannedCandidate], env: Mapping[int, Mapping[str, str]]
    ) -> None:
        self.job_env = {index: dict(values) for index, values in env.items()}
        try:
            self._measure_all([self._job(p) for p in plans])
        finally:
            self.job_env = {}

    def finish_record(self, record: CandidateRecord) -> None:
        self._finish(record)

    def save(self) -> None:
        save_state(self.setup.repo, self.state)

    def announce(self, message: str) -> None:
        self._emit("generating", message=message)

    def _generate(self, iteration: int) -> PlannedCandidate:
        from core.run.isolation import resolve_holdout

        s = self.setup
        ref = sources.generated_ref(s.campaign_id, iteration)
        existing = sources.existing_generated(s.repo, s.campaign_id, iteration)
        if existing is not None:
            plan = PlannedCandidate(iteration, ref, existing, s.baseline_ref)
            self.state = self.state.with_planned(plan)
            save_state(s.repo, self.state)
            return plan
        self._emit("generating", message=f"generating candidate {iteration}")
        feedback = sources.feedback_payload(
            self.state.metric_name or (self.state.baseline.metric_name or "" if self.state.baseline else ""),
            self.state.direction,
            self.state.baseline,
            self.state.records,
        )
        made = sources.run_generator(
            s.repo,
            command=str(s.source["command"]),
            parent_commit=s.baseline_commit,
            campaign_id=s.campaign_id,
            iteration=iteration,
            feedback=feedback,
            timeout_s=s.config.timeout_s,
            work_root=s.work_root,
            sandbox=s.sandbox,
            hidden=(os.path.realpath(s.repo), resolve_holdout(s.config.holdout_dir, s.repo)),
        )
        plan = PlannedCandidate(iteration, made.ref, made.commit, s.baseline_ref)
        self.state = self.state.with_planned(plan)
        save_state(s.repo, self.state)
        if made.commit is None:
            self._finish(
                CandidateRecord(
                    index=iteration,
                    ref=made.ref,
                    commit=None,
                    parent_ref=s.baseline_ref,
                    status="failed",
                    reason=made.reason,
                    stdout_tail=made.stdout_tail,
                    stderr_tail=made.stderr_tail,
                    duration_s=made.duration_s,
                    sandbox=s.sandbox.describe(),
                )
            )
        return plan

    # -- recording (the parent alone writes)

    def _finish(self, record: CandidateRecord) -> None:
        """External evaluator → history → checkpoint, in that order (SPEC §5.2)."""
        s = self.setup
        record = replace(record, finished_at=record.finished_at or datetime.now(UTC).isoformat())
        if record.index > 0 and s.evaluator is not None:
            record = record.with_external(self._external(record))
        if self.record_hook is not None:
            self.record_hook(record)
        entry = to_experiment_record(
            s.campaign_id,
            record,
            metric_name=self.state.metric_name or record.metric_name or "score",
            provenance=self.state.evaluator.provenance,
        )
        append_history(s.repo, [entry])
        self.state = self.state.with_record(record)
        save_state(s.repo, self.state)
        self._emit("finished", record=record)

    def _external(self, record: CandidateRecord) -> ExternalOutcome:
        from core.integrity.materialize import materialize

        s = self.setup
        assert s.evaluator is not None
        node = CandidateNode(
            record.index,
            record.ref,
            record.commit or "",
            record.parent_ref,
            record.status,
            record.score,
            record.finding_codes,
        )
        workdir = Path(tempfile.mkdtemp(prefix=f"external-{record.index}-", dir=s.work_root))
        try:
            workspace = workdir / "workspace"
            try:
                if record.commit is None:
                    raise ValueError("candidate does not identify a commit")
                materialize(s.repo, record.commit, workspace)
            except Exception as exc:  # a tree that cannot be written (git, OS, depth) is this candidate's
                if s.policy == "raise":
                    from core.errors import IterationEvaluationError

                    raise IterationEvaluationError(
                        f"iteration evaluator could not run for candidate {record.index} at {record.ref}: {exc}"
                    ) from exc
                return ExternalOutcome.failed(exc)
            context = IterationEvaluationContext(
                iteration=record.index,
                goal=self.state.goal,
                workspace_dir=workspace,
                git_ref=record.ref,
                parent_ref=record.parent_ref,
                node=node,
            )
            return run_external(s.evaluator, context, s.policy)
        finally:
            remove_tree(workdir)

    def _emit(self, kind: Literal["start", "generating", "finished"], **fields: Any) -> None:
        if self.progress is None:
            return
        records = self.state.records
        source = self.setup.source
        if source["kind"] == "generator":
            total = int(source["iterations"])
        elif source["kind"] == "prompt":
            total = int(source["iterations"]) * int(source["rewrites"])
        else:
            total = len(self.state.planned)
        self.progress(
            ProgressEvent(
                kind=kind,
                campaign_id=self.setup.campaign_id,
                total=total,
                done=len(records),
                running=min(self.running, self.setup.parallel),
                scored=sum(1 for r in records if r.status == "scored"),
                rejected=sum(1 for r in records if r.status == "rejected"),
                failed=sum(1 for r in records if r.status == "failed"),
                baseline=self.state.baseline,
                **fields,
            )
        )


def _died(
    job: MeasureJob, reason: str = "the measuring process died (killed by the system, e.g. out of memory)"
) -> CandidateRecord:
    return CandidateRecord(
        index=job.index,
        ref=job.ref,
        commit=job.commit,
        parent_ref=job.parent_ref,
        status="failed",
        reason=reason,
        sandbox=job.sandbox.describe(),
    )


# ------------------------------------------------------------------------------------------------ results


def build_result(state: CampaignState, repo: Path) -> CampaignResult:
    """The scoreboard, derived from the checkpoint alone (so a resumed campaign gives the same one)."""
    baseline = state.baseline
    if baseline is None:
        raise CampaignError(f"campaign {state.campaign_id!r} has no baseline measurement yet: resume it")
    metric = state.metric_name or baseline.metric_name or _first_metric(state.records) or "score"
    direction: Direction = "minimize" if state.direction == "minimize" else "maximize"
    baseline = _check_metric(baseline, metric)
    records = [_check_metric(r, metric) for r in state.records]
    base_score = baseline.score if baseline.status == "scored" else None
    rows = compare_rows(baseline, records)
    pick = pick_winner(base_score, rows, direction, state.noise)
    notes = list(state.notes)
    if state.evaluator.version == 0:
        notes.append(
            "the suite is not registered (version 0): `proctor registry register` gives it a version"
        )
    if baseline.status != "scored":
        notes.append(
            f"the baseline was {baseline.status}: {baseline.reason}; no deltas, any scored candidate wins"
        )
    return CampaignResult(
        campaign_id=state.campaign_id,
        repo=repo,
        evaluator=state.evaluator,
        metric_name=metric,
        direction=direction,
        baseline=baseline,
        rows=rows,
        winner=pick.winner,
        delivered_branch=state.delivered_branch,
        campaign_dir=campaign_dir(repo, state.campaign_id),
        sandbox=state.sandbox,
        goal=state.goal,
        notes=tuple(notes),
        noise=state.noise,
        within_noise=pick.within_noise,
        started_at=state.created_at,
        finished_at=state.finished_at,
        proctor_version=state.proctor_version,
        interpreter=_describe_interpreter(state.interpreter),
        interpreter_info=dict(state.interpreter),
    )


def _describe_interpreter(info: Mapping[str, Any]) -> str:
    if not info:
        return ""
    identity = str(info.get("environment_id", ""))[:12]
    return f"{info.get('path')} (Python {info.get('version')}, {info.get('source')}; environment {identity})"


def _first_metric(records: Sequence[CandidateRecord]) -> str | None:
    return next((r.metric_name for r in sorted(records, key=lambda r: r.index) if r.metric_name), None)


def _check_metric(record: CandidateRecord, metric: str) -> CandidateRecord:
    """A score under another metric name is not comparable: such a run counts as failed."""
    if (
        record.status != "scored"
        or record.metric_name is None
        or record.metric_name.lower() == metric.lower()
    ):
        return record
    return replace(
        record,
        status="failed",
        score=None,
        reason=f"printed metric {record.metric_name!r}, but the campaign measures {metric!r}",
    )


def write_outputs(result: CampaignResult) -> None:
    """scoreboard.json (schema 1) and the self-contained report.html, each replaced atomically."""
    from core.report.campaign_render import render_html

    atomic_write_json(result.scoreboard_path, result.to_json())
    atomic_write_text(result.report_path, render_html(result))


def load_result(repo: Path | str, campaign_id: str | None = None) -> CampaignResult:
    """The result of a finished (or partly run) campaign from its checkpoint, without measuring anything."""
    root = _workspace(Path(repo))
    cid = check_campaign_id(campaign_id) if campaign_id else latest_campaign(root)
    return build_result(load_state(root, cid), root)
