"""The campaign's run loop: which candidate is measured next, for each candidate source.

The `Scheduler` wires four collaborators and decides only the order: a `JobFactory` (what to measure), a
`Measurer` (where: the local pool or a job queue), a `Recorder` (history and checkpoint, in the parent alone),
and a `ProgressReporter`. For a prompt campaign it is the `PromptHost` the prompt driver runs against.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from core.campaign import candidates as sources
from core.campaign.measuring import JobFactory, Measurer, measurer_for
from core.campaign.model import CandidateRecord
from core.campaign.recording import Checkpoint, ProgressCallback, ProgressReporter, Recorder
from core.campaign.setup import CampaignSetup
from core.campaign.state import CampaignState, PlannedCandidate
from core.campaign.worker import MeasureJob


class Scheduler:
    """Runs one campaign's measurements in order and returns the final checkpointed state."""

    def __init__(self, setup: CampaignSetup, state: CampaignState, progress: ProgressCallback | None) -> None:
        self.setup = setup
        self.checkpoint = Checkpoint(setup.repo, state)
        self.jobs = JobFactory(setup)
        self.measurer: Measurer = measurer_for(setup)
        self.progress = ProgressReporter(progress, setup, running=lambda: self.measurer.running)
        self.recorder = Recorder(setup, self.checkpoint, self.progress)

    @property
    def state(self) -> CampaignState:
        return self.checkpoint.state

    @state.setter
    def state(self, value: CampaignState) -> None:
        self.checkpoint.state = value

    def run(self) -> CampaignState:
        try:
            self.progress.start(self.state)
            kind = self.setup.source["kind"]
            if kind == "generator":
                self._run_generator()
            elif kind == "prompt":
                self._run_prompt()
            else:
                self._run_refs()
        except BaseException:
            self.measurer.abort()
            raise
        self.measurer.close()
        return self.state

    def _measure(self, jobs: Sequence[MeasureJob]) -> None:
        for record in self.measurer.measure(jobs):
            self.recorder.finish(record)

    def _run_refs(self) -> None:
        """The baseline (unless already measured) and every planned ref not finished yet, in one batch."""
        jobs = [] if self.state.baseline is not None else [self.jobs.baseline()]
        done = self.state.finished_indexes()
        jobs += [self.jobs.for_plan(p) for p in self.state.planned if p.index not in done and p.commit]
        self._measure(jobs)

    def _run_generator(self) -> None:
        """The baseline, then each iteration in turn: generate (or find the commit made before), measure."""
        if self.state.baseline is None:
            self._measure([self.jobs.baseline()])
        planned = {p.index: p for p in self.state.planned}
        for iteration in range(1, int(self.setup.source["iterations"]) + 1):
            if iteration in self.state.finished_indexes():
                continue
            plan = planned.get(iteration)
            if plan is None or plan.commit is None:
                plan = self._generate(iteration)
            if plan.commit is None:
                continue  # _generate recorded the failed candidate
            self._measure([self.jobs.for_plan(plan)])

    def _generate(self, iteration: int) -> PlannedCandidate:
        """Candidate `iteration` from the generator (a failed generation is recorded as a failed candidate)."""
        from core.run.isolation import resolve_holdout

        s = self.setup
        ref = sources.generated_ref(s.campaign_id, iteration)
        existing = sources.existing_generated(s.repo, s.campaign_id, iteration)
        if existing is not None:
            plan = PlannedCandidate(iteration, ref, existing, s.baseline_ref)
            self.checkpoint.plan(plan)
            return plan
        self.announce(f"generating candidate {iteration}")
        state = self.state
        made = sources.run_generator(
            s.repo,
            command=str(s.source["command"]),
            parent_commit=s.baseline_commit,
            campaign_id=s.campaign_id,
            iteration=iteration,
            feedback=sources.feedback_payload(
                state.metric_name or (state.baseline.metric_name or "" if state.baseline else ""),
                state.direction,
                state.baseline,
                state.records,
            ),
            timeout_s=s.config.timeout_s,
            work_root=s.work_root,
            sandbox=s.sandbox,
            hidden=(os.path.realpath(s.repo), resolve_holdout(s.config.holdout_dir, s.repo)),
        )
        plan = PlannedCandidate(iteration, made.ref, made.commit, s.baseline_ref)
        self.checkpoint.plan(plan)
        if made.commit is None:
            self.recorder.finish(
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
        self.recorder.hook = driver.before_record
        try:
            driver.run()
        finally:
            self.recorder.hook = None

    # -- the PromptHost interface (core/campaign/prompt_source/)

    def measure_planned(
        self, plans: Sequence[PlannedCandidate], env: Mapping[int, Mapping[str, str]]
    ) -> None:
        self._measure([self.jobs.for_plan(p, env.get(p.index)) for p in plans])

    def finish_record(self, record: CandidateRecord) -> None:
        self.recorder.finish(record)

    def save(self) -> None:
        self.checkpoint.save()

    def announce(self, message: str) -> None:
        self.progress.emit("generating", self.state, message=message)
