"""The `prompt` candidate source (SPEC §5.1, §7 Teacher) on the campaign side: the fingerprint of the source,
and the driver that runs its iterations inside the campaign scheduler.

Each iteration the teacher (`core.judge.teacher.propose_rewrites`) sees the task description (the brief's Goal
or `--task`), the current best prompt (the baseline's, or the best scored candidate's, by the campaign's own
winner rule) and the judge's feedback on that prompt's outputs for the search split only. The rewrites are
committed on top of that parent (`prompt_file.commit_rewrite`) into `refs/proctor/generated/<campaign>/<n>`,
then the normal per-candidate pipeline measures them with the judge proxy running for their evaluator runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core import secrets
from core.campaign.candidates import generated_ref
from core.campaign.model import CandidateRecord, Direction, winner_over
from core.campaign.prompt_source.evaluator_feedback import parse_feedback
from core.campaign.prompt_source.prompt_file import commit_rewrite, like_original, read_prompt
from core.campaign.prompt_source.task_model import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_BUDGET,
    ENV_FEEDBACK,
    resolve_base_url,
)
from core.campaign.state import CampaignState, PlannedCandidate
from core.errors import CampaignError, GitError, JudgeError
from core.state_root import proctor_dir

if TYPE_CHECKING:
    from core.config import Config
    from core.judge import JudgeSettings, Proposals
    from core.judge.parse import Rewrite
    from core.judge.proxy import JudgeProxy

DEFAULT_REWRITES = 2
NOTE_PREFIX = "prompt campaign"


def source_spec(
    prompt_file: str, *, iterations: int, rewrites: int, task: str, parent: str
) -> dict[str, Any]:
    """The candidate source as the resume fingerprint records it (SPEC §5.4)."""
    if iterations <= 0:
        raise CampaignError("a prompt campaign needs --iterations N (N > 0): how many rounds of rewrites")
    if rewrites <= 0:
        raise CampaignError(f"--rewrites must be 1 or more (rewrites per iteration), found {rewrites}")
    return {
        "kind": "prompt",
        "prompt_file": prompt_file,
        "iterations": iterations,
        "rewrites": rewrites,
        "task": task,
        "parent": parent,
    }


@dataclass(frozen=True)
class _Parent:
    """The prompt an iteration rewrites: the best candidate so far (index 0: the baseline) at its commit."""

    index: int
    ref: str
    commit: str
    prompt: str


class PromptHost(Protocol):
    """What the campaign scheduler offers the driver: its checkpointed state and the measuring pipeline."""

    state: CampaignState

    def measure_planned(
        self, plans: Sequence[PlannedCandidate], env: Mapping[int, Mapping[str, str]]
    ) -> None:
        """Measure `plans` (the normal per-candidate pipeline), each with its extra environment."""

    def finish_record(self, record: CandidateRecord) -> None:
        """Record a candidate that was never measured (history, checkpoint, progress)."""

    def save(self) -> None:
        """Checkpoint the current state."""

    def announce(self, message: str) -> None:
        """Tell the progress display what is happening."""


class PromptDriver:
    """Runs the iterations of a prompt campaign: propose → commit → measure, checkpointing as it goes.

    The checkpoint's `prompt` ledger holds the spend so far, each iteration's outcome, and the feedback text of
    every measured prompt, so a resumed campaign neither asks the teacher again for a planned iteration nor
    re-runs a finished candidate, and it still knows what to tell the teacher next.
    """

    def __init__(
        self,
        host: PromptHost,
        *,
        repo: Path,
        campaign_id: str,
        config: Config,
        source: Mapping[str, Any],
        baseline_ref: str,
        baseline_commit: str,
    ) -> None:
        self.host = host
        self.repo = repo
        self.campaign_id = campaign_id
        self.config = config
        self.file = str(source["prompt_file"])
        self.iterations = int(source["iterations"])
        self.rewrites = int(source["rewrites"])
        self.task = (
            str(source.get("task") or "")
            or host.state.goal.strip()
            or (
                f"Improve the prompt in {self.file} so that the evaluator scores the outputs it produces higher."
            )
        )
        self.baseline_ref = baseline_ref
        self.baseline_commit = baseline_commit
        self.cap: float | None = None if config.judge.free else config.judge.budget_usd
        self.proxy: JudgeProxy | None = None  # started by `run`; evaluators reach the judge only through it
        self.expecting: set[int] = set()
        self.stop_reason = ""

    # -- ledger (part of the checkpoint)

    def _ledger(self) -> dict[str, Any]:
        return dict(self.host.state.prompt)

    def _update(self, **changes: Any) -> None:
        self.host.state = replace(self.host.state, prompt={**self._ledger(), **changes})

    @property
    def spent_usd(self) -> float:
        return float(self._ledger().get("spent_usd", 0.0))

    def remaining_usd(self) -> float | None:
        return None if self.cap is None else max(0.0, self.cap - self.spent_usd)

    # -- the loop

    def run(self) -> None:
        """The campaign's iterations, with the judge proxy running for their evaluator runs."""
        from core.judge.proxy import JudgeProxy

        judge = self.config.judge
        self.proxy = JudgeProxy(
            resolve_base_url(judge),
            secrets.get(judge.api_key_env),
            cap_usd=self.remaining_usd(),
            prices=judge.prices,
            free=judge.free,
        )
        try:
            self._iterate()
        finally:
            self.proxy.close()
            self.proxy = None

    def evaluator_env(self) -> dict[str, str]:
        """The judge as the evaluator sees it: the proxy's URL and token, never the endpoint's key."""
        assert self.proxy is not None
        return {ENV_BASE_URL: self.proxy.base_url, ENV_API_KEY: self.proxy.token}

    def _iterate(self) -> None:
        if self.host.state.baseline is None:
            self._measure([PlannedCandidate(0, self.baseline_ref, self.baseline_commit, "")])
        for iteration in range(1, self.iterations + 1):
            if self.stop_reason:
                break
            slots = list(range((iteration - 1) * self.rewrites + 1, iteration * self.rewrites + 1))
            planned = {p.index: p for p in self.host.state.planned}
            if all(slot in planned for slot in slots):
                self._settle(iteration, [planned[slot] for slot in slots])
                continue
            plans = self._propose(iteration, slots)
            if plans is None:
                break
            self._settle(iteration, plans)
        self._write_notes()

    def _settle(self, iteration: int, plans: Sequence[PlannedCandidate]) -> None:
        """Record the slots the teacher left empty and measure the rest; finished ones are skipped."""
        finished = self.host.state.finished_indexes()
        problem = self._ledger().get("iterations", {}).get(str(iteration), {}).get("problem") or "no rewrite"
        for plan in plans:
            if plan.commit is None and plan.index not in finished:
                self.host.finish_record(
                    CandidateRecord(
                        index=plan.index,
                        ref=plan.ref,
                        commit=None,
                        parent_ref=plan.parent_ref,
                        status="failed",
                        reason=f"iteration {iteration}: no rewrite from the teacher ({problem})",
                    )
                )
        todo = [p for p in plans if p.commit is not None and p.index not in finished]
        if todo:
            self._measure(todo)

    def _parent(self) -> CandidateRecord | None:
        """The current best scored candidate that beats the baseline, else the baseline (None if unmeasured)."""
        state = self.host.state
        baseline = state.baseline
        if baseline is None:
            return None
        direction: Direction = "minimize" if state.direction == "minimize" else "maximize"
        return winner_over(baseline, state.records, direction, state.noise)[0] or baseline

    def _propose(self, iteration: int, slots: list[int]) -> list[PlannedCandidate] | None:
        """Ask the teacher, commit its rewrites and plan every slot; None when nothing could be asked."""
        parent = self._parent_prompt()
        proposals = self._ask_teacher(iteration, parent, len(slots))
        if proposals is None:
            return None
        spent = self.spent_usd + proposals.cost_usd
        if not proposals.rewrites and proposals.budget_exhausted:
            self._update(spent_usd=spent)
            self.host.save()
            self.stop_reason = self._budget_reason(f"before the teacher could answer iteration {iteration}")
            return None
        plans = [
            self._plan(
                iteration, slot, parent, proposals.rewrites[n] if n < len(proposals.rewrites) else None
            )
            for n, slot in enumerate(slots)
        ]
        iterations = dict(self._ledger().get("iterations", {}))
        iterations[str(iteration)] = {
            "parent_index": parent.index,
            "parent_ref": parent.ref,
            "proposed": len(proposals.rewrites),
            "teacher_cost_usd": proposals.cost_usd,
            "parse_failures": proposals.parse_failures,
            "problem": _teacher_problem(proposals.problem),
        }
        self._update(spent_usd=spent, iterations=iterations)
        state = self.host.state
        for plan in plans:
            state = state.with_planned(plan)
        self.host.state = state
        self.host.save()
        if proposals.budget_exhausted:
            self.stop_reason = self._budget_reason(f"while the teacher answered iteration {iteration}")
        return plans

    def _parent_prompt(self) -> _Parent:
        parent = self._parent()
        commit = parent.commit if parent is not None and parent.commit else self.baseline_commit
        return _Parent(
            index=parent.index if parent is not None else 0,
            ref=parent.ref if parent is not None and parent.index > 0 else self.baseline_ref,
            commit=commit,
            prompt=read_prompt(self.repo, commit, self.file),
        )

    def _ask_teacher(self, iteration: int, parent: _Parent, count: int) -> Proposals | None:
        """The teacher's rewrites of the parent's prompt, from its feedback; None (and the stop reason) when
        the teacher could not be asked."""
        from core.judge import Judge, propose_rewrites

        feedback = str(self._ledger().get("feedback", {}).get(str(parent.index), ""))
        self.host.announce(
            f"iteration {iteration}/{self.iterations}: asking the teacher for {count} rewrite(s) of "
            f"{self.file} (parent {parent.ref})"
        )
        try:
            with Judge.open(self._teacher_settings()) as judge:
                return propose_rewrites(
                    parent.prompt, task=self.task, feedback=feedback, count=count, judge=judge
                )
        except JudgeError as exc:
            self.stop_reason = f"the teacher could not be asked in iteration {iteration}: {exc}"
            return None

    def _plan(self, iteration: int, slot: int, parent: _Parent, rewrite: Rewrite | None) -> PlannedCandidate:
        """The slot's candidate: the rewrite committed on top of the parent, or no commit when the teacher
        left the slot empty."""
        ref = generated_ref(self.campaign_id, slot)
        if rewrite is None:
            return PlannedCandidate(slot, ref, None, parent.ref)
        message = (
            f"prompt rewrite {slot}: {self.file}\n\nProctor campaign {self.campaign_id}, iteration "
            f"{iteration}, parent {parent.commit}.\n\nTeacher's rationale: {rewrite.rationale or '-'}\n"
        )
        try:
            commit = commit_rewrite(
                self.repo,
                parent=parent.commit,
                rel=self.file,
                text=like_original(parent.prompt, rewrite.prompt),
                ref=ref,
                message=message,
            )
        except GitError as exc:
            raise CampaignError(f"could not commit prompt rewrite {slot}: {exc}") from None
        return PlannedCandidate(slot, ref, commit, parent.ref)

    def _teacher_settings(self) -> JudgeSettings:
        from core.judge import JudgeSettings

        settings = JudgeSettings.from_config(
            self.config.judge,
            base_url=resolve_base_url(self.config.judge) or None,
            budget_usd=self.remaining_usd(),
        )
        return replace(settings, cache_path=proctor_dir(self.repo) / "judge-cache.sqlite")

    # -- measuring

    def _measure(self, plans: Sequence[PlannedCandidate]) -> None:
        remaining = self.remaining_usd()
        share = remaining / len(plans) if remaining is not None else None
        assert self.proxy is not None
        self.proxy.set_cap(remaining)  # the hard cap on everything these runs send, whatever they report
        env: dict[int, dict[str, str]] = {}
        for plan in plans:
            self.proxy.feedback.pop(plan.index, None)
            extra = {**self.evaluator_env(), ENV_FEEDBACK: self.proxy.feedback_url(plan.index)}
            if share is not None:
                extra[ENV_BUDGET] = repr(share)
            env[plan.index] = extra
            self.expecting.add(plan.index)
        self.host.measure_planned(plans, env)

    def before_record(self, record: CandidateRecord) -> None:
        """Called by the scheduler just before it checkpoints `record`: fold the evaluator's report into the
        ledger, so the spend and the feedback land in the same atomic write as the record."""
        if record.index not in self.expecting:
            return
        self.expecting.discard(record.index)
        raw = self.proxy.feedback.pop(record.index, None) if self.proxy is not None else None
        report = parse_feedback(raw) if raw is not None else None
        ledger = self._ledger()
        if report is None:
            self._update(unreported=int(ledger.get("unreported", 0)) + 1)
            return
        feedback = dict(ledger.get("feedback", {}))
        feedback[str(record.index)] = report.text()
        self._update(spent_usd=self.spent_usd + report.spent_usd, feedback=feedback)
        if report.budget_exhausted and not self.stop_reason:
            self.stop_reason = self._budget_reason(f"while measuring {record.ref}")

    # -- reporting

    def _budget_reason(self, when: str) -> str:
        return f"the judge budget ran out {when}; no new proposals"

    def _write_notes(self) -> None:
        state = self.host.state
        ledger = self._ledger()
        spend = f"${self.spent_usd:.4f}" + (
            f" of the ${self.cap:.2f} budget" if self.cap is not None else ", endpoint declared free"
        )
        notes = [n for n in state.notes if not n.startswith(NOTE_PREFIX)]
        done = len(ledger.get("iterations", {}))
        notes.append(
            f"{NOTE_PREFIX}: {done} of {self.iterations} iteration(s) proposed, {self.rewrites} rewrite(s) each "
            f"of {self.file}; judge spend (teacher and evaluators) {spend}"
        )
        if self.stop_reason:
            notes.append(f"{NOTE_PREFIX} stopped: {self.stop_reason}")
        unreported = int(ledger.get("unreported", 0))
        if unreported:
            notes.append(
                f"{NOTE_PREFIX}: {unreported} evaluator run(s) wrote no feedback document "
                f"(${ENV_FEEDBACK}): their spend is not counted and the teacher got no feedback on them"
            )
        self.host.state = replace(state, notes=tuple(notes))
        self.host.save()


def _teacher_problem(problem: str | None) -> str | None:
    if problem is None:
        return None
    if "the teacher proposed" in problem:
        return problem
    return f"the teacher's answer could not be used: {problem}"
