"""Recording finished candidates, in the parent alone: the iteration evaluator, then history, then the
checkpoint, then the progress display (SPEC §5.2). A crash between two candidates loses nothing recorded.

The display is told through `ProgressEvent`s counted from the checkpoint, so a resumed campaign counts what it
finished before.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core.campaign.external import (
    CandidateNode,
    ExternalOutcome,
    IterationEvaluationContext,
    run_external,
)
from core.campaign.history import append_history, to_experiment_record
from core.campaign.model import CandidateRecord
from core.campaign.state import CampaignState, PlannedCandidate, save_state
from core.treewalk import remove_tree

if TYPE_CHECKING:
    from core.campaign.setup import CampaignSetup

EventKind = Literal["start", "generating", "finished"]


@dataclass(frozen=True)
class ProgressEvent:
    """What a progress display needs after each step: counts, and the record that just finished."""

    kind: EventKind
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


def planned_total(source: Mapping[str, Any], planned: int) -> int:
    """How many candidates the campaign measures: its generator's or prompt's budget, or its planned refs."""
    if source["kind"] == "generator":
        return int(source["iterations"])
    if source["kind"] == "prompt":
        return int(source["iterations"]) * int(source["rewrites"])
    return planned


class ProgressReporter:
    """Turns the checkpoint into events for the caller's callback; silent when there is none.

    `running` asks the measuring side how many candidates are in flight at the moment of the event.
    """

    def __init__(
        self, callback: ProgressCallback | None, setup: CampaignSetup, running: Callable[[], int]
    ) -> None:
        self.callback = callback
        self.setup = setup
        self.running = running

    def start(self, state: CampaignState) -> None:
        """The first event: where the config came from, which Python measures, and the setup's warnings."""
        source, python = self.setup.config_source, self.setup.python
        line = "; ".join(
            part
            for part in (source.line if source else "", f"python {python.describe()}" if python else "")
            if part
        )
        self.emit("start", state, message=line, warnings=self.setup.warnings)

    def emit(self, kind: EventKind, state: CampaignState, **fields: Any) -> None:
        if self.callback is None:
            return
        records = state.records
        self.callback(
            ProgressEvent(
                kind=kind,
                campaign_id=self.setup.campaign_id,
                total=planned_total(self.setup.source, len(state.planned)),
                done=len(records),
                running=min(self.running(), self.setup.parallel),
                scored=sum(1 for r in records if r.status == "scored"),
                rejected=sum(1 for r in records if r.status == "rejected"),
                failed=sum(1 for r in records if r.status == "failed"),
                baseline=state.baseline,
                **fields,
            )
        )


RecordHook = Callable[[CandidateRecord], None]


class Checkpoint:
    """The campaign's state and its file: every change is saved as it is made, so `--resume` starts there."""

    def __init__(self, repo: Path, state: CampaignState) -> None:
        self.repo = repo
        self.state = state

    def save(self) -> None:
        save_state(self.repo, self.state)

    def plan(self, planned: PlannedCandidate) -> None:
        self.state = self.state.with_planned(planned)
        self.save()

    def record(self, record: CandidateRecord) -> None:
        self.state = self.state.with_record(record)
        self.save()


class Recorder:
    """Records each finished candidate; `hook` (the prompt source's) sees a record before it is written."""

    def __init__(self, setup: CampaignSetup, checkpoint: Checkpoint, progress: ProgressReporter) -> None:
        self.setup = setup
        self.checkpoint = checkpoint
        self.progress = progress
        self.hook: RecordHook | None = None

    def finish(self, record: CandidateRecord) -> None:
        """External evaluator → history → checkpoint, in that order (SPEC §5.2)."""
        s = self.setup
        state = self.checkpoint.state
        record = replace(record, finished_at=record.finished_at or datetime.now(UTC).isoformat())
        if record.index > 0 and s.evaluator is not None:
            record = record.with_external(evaluate_iteration(s, state.goal, record))
        if self.hook is not None:
            self.hook(record)
        state = self.checkpoint.state  # the hook may have updated the prompt ledger
        entry = to_experiment_record(
            s.campaign_id,
            record,
            metric_name=state.metric_name or record.metric_name or "score",
            provenance=state.evaluator.provenance,
        )
        append_history(s.repo, [entry])
        self.checkpoint.record(record)
        self.progress.emit("finished", self.checkpoint.state, record=record)


def evaluate_iteration(setup: CampaignSetup, goal: str, record: CandidateRecord) -> ExternalOutcome:
    """Run the external iteration evaluator on the candidate's materialized tree (policy `record`: a tree
    that cannot be written is the candidate's failure; `raise`: it stops the campaign)."""
    from core.integrity.materialize import materialize

    assert setup.evaluator is not None
    workdir = Path(tempfile.mkdtemp(prefix=f"external-{record.index}-", dir=setup.work_root))
    try:
        workspace = workdir / "workspace"
        try:
            if record.commit is None:
                raise ValueError("candidate does not identify a commit")
            materialize(setup.repo, record.commit, workspace)
        except Exception as exc:  # a tree that cannot be written (git, OS, depth) is this candidate's
            if setup.policy == "raise":
                from core.errors import IterationEvaluationError

                raise IterationEvaluationError(
                    f"iteration evaluator could not run for candidate {record.index} at {record.ref}: {exc}"
                ) from exc
            return ExternalOutcome.failed(exc)
        context = IterationEvaluationContext(
            iteration=record.index,
            goal=goal,
            workspace_dir=workspace,
            git_ref=record.ref,
            parent_ref=record.parent_ref,
            node=_node(record),
        )
        return run_external(setup.evaluator, context, setup.policy)
    finally:
        remove_tree(workdir)


def _node(record: CandidateRecord) -> CandidateNode:
    return CandidateNode(
        record.index,
        record.ref,
        record.commit or "",
        record.parent_ref,
        record.status,
        record.score,
        record.finding_codes,
    )
