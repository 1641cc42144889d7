"""One commit measured against a trusted baseline, outside a campaign: the pull-request check's path.

The GitHub App scores a PR head against its base with exactly the steps a campaign uses for each candidate
(SPEC §5.2: materialize, guard, overlay, sandbox, re-hash — `core.campaign.worker.measure`), so changes to
how a candidate is run or judged reach the app with no second change. `prepare_baseline` fixes what a
campaign's setup fixes (the baseline's config, suite snapshot, sandbox, metric); `measure_commit` measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.campaign.model import CandidateRecord, Direction
from core.campaign.stats import paired_bootstrap_se
from core.campaign.worker import MeasureJob, measure
from core.errors import ConfigError

if TYPE_CHECKING:
    from core.config import Config
    from core.integrity.manifest import SuiteSnapshot
    from core.runner import SandboxChoice


@dataclass(frozen=True)
class Baseline:
    """A trusted commit, materialized in `directory`, with the config and suite that measure others."""

    repo: Path
    ref: str
    commit: str
    directory: Path
    config: Config
    snapshot: SuiteSnapshot
    sandbox: SandboxChoice
    metric_name: str
    direction: Direction
    work_root: Path

    @property
    def evaluator_id(self) -> str:
        return self.snapshot.evaluator_id


def prepare_baseline(repo: Path, commit: str, work_root: Path, *, ref: str = "base") -> Baseline:
    """Materialize `commit` under `work_root` and read its config and suite; ProctorError when it cannot
    be a baseline (bad config, IN006 stale result.json, no suite, namespace sandbox unavailable)."""
    from core.campaign.setup import measurement_protocol
    from core.config import load_config
    from core.integrity.guard import refuse_stale_result
    from core.integrity.manifest import snapshot
    from core.integrity.materialize import materialize
    from core.runner import choose_sandbox

    directory = work_root / f"baseline-{commit[:12]}"
    materialize(repo, commit, directory)
    try:
        config = load_config(directory).config
    except ConfigError as exc:
        where = f"{ref}:{exc.path.relative_to(directory).as_posix()}"
        raise ConfigError(where, exc.line, exc.key, exc.problem) from None
    refuse_stale_result(directory, config)
    suite = snapshot(directory / config.evaluation_dir, config)
    sandbox = choose_sandbox(config.campaign.sandbox)
    name, direction, _goal = measurement_protocol(config, directory)
    return Baseline(repo, ref, commit, directory, config, suite, sandbox, name, direction, work_root)


def measure_commit(baseline: Baseline, commit: str, *, index: int, ref: str) -> CandidateRecord:
    """Measure `commit` (index 0 for the baseline itself) exactly as a campaign measures a candidate."""
    job = MeasureJob(
        repo=baseline.repo,
        index=index,
        ref=ref,
        commit=commit,
        parent_ref=baseline.ref if index else "",
        baseline_commit=baseline.commit,
        baseline_dir=baseline.directory,
        suite_snapshot=baseline.snapshot,
        config=baseline.config,
        sandbox=baseline.sandbox,
        work_root=baseline.work_root,
    )
    return measure(job)


def delta_of(base: CandidateRecord, head: CandidateRecord) -> tuple[float | None, float | None]:
    """(head − base, its paired bootstrap SE) when both are scored; the SE needs per-item scores."""
    if base.status != "scored" or head.status != "scored" or base.score is None or head.score is None:
        return None, None
    return head.score - base.score, paired_bootstrap_se(base.per_item_scores, head.per_item_scores)
