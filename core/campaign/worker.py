"""Measuring one commit (SPEC §5.2), the function the campaign's process pool runs.

materialize → guard → overlay the trusted suite → run the evaluator in the sandbox → parse the score line and
result.json → re-hash the suite (IN009). The external evaluator, history and checkpoint happen in the parent,
which alone writes state. A worker never raises for what a candidate does: every outcome is a record.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import os
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from core.campaign.model import CandidateRecord, FindingRecord, Status
from core.campaign.stats import per_item_scores
from core.errors import ProctorError
from core.scoreline import parse_stdout
from core.treewalk import remove_tree

if TYPE_CHECKING:
    from core.config import Config
    from core.integrity.findings import Finding
    from core.integrity.manifest import SuiteSnapshot
    from core.run.isolation import Isolation
    from core.runner import RunResult, SandboxChoice
    from core.sandbox import Interpreter

TAIL_CHARS = 4000
RESULT_JSON_LIMIT = 64 * 1024 * 1024
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class MeasureJob:
    """Everything a worker needs; picklable (it crosses the process boundary)."""

    repo: Path
    index: int
    ref: str
    commit: str
    parent_ref: str
    baseline_commit: str
    baseline_dir: Path
    suite_snapshot: SuiteSnapshot
    config: Config
    sandbox: SandboxChoice
    work_root: Path
    # Added to the scrubbed environment: a prompt campaign's judge endpoint, budget share and feedback path.
    extra_env: tuple[tuple[str, str], ...] = ()
    # A prompt campaign's evaluator reaches Proctor's judge proxy on the loopback interface.
    evaluator_network: bool = False
    # The project's interpreter (core/interpreter.py), bound read-only into the sandbox; None = Proctor's.
    interpreter: Interpreter | None = None


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


def measure(job: MeasureJob) -> CandidateRecord:
    """Measure one commit; the record says scored, rejected (with findings) or failed (with reason)."""
    started = time.monotonic()
    dest = Path(tempfile.mkdtemp(prefix="candidate-", dir=job.work_root))  # a fresh, unguessable path
    try:
        return _measure(job, dest, started)
    except ProctorError as exc:
        return _record(job, "failed", started, reason=f"could not measure: {exc}")
    except Exception as exc:  # a bug, an OS error or a RecursionError must not end the whole campaign
        return _record(job, "failed", started, reason=f"could not measure: {type(exc).__name__}: {exc}")
    finally:
        with contextlib.suppress(Exception):
            remove_tree(dest)


def failed_record(job: MeasureJob, reason: str) -> CandidateRecord:
    """The failed record of a job whose measuring never reported (its process died, the queue lost it)."""
    return CandidateRecord(
        index=job.index,
        ref=job.ref,
        commit=job.commit,
        parent_ref=job.parent_ref,
        status="failed",
        reason=reason,
        sandbox=job.sandbox.describe(),
    )


def _record(job: MeasureJob, status: Status, started: float, **fields: Any) -> CandidateRecord:
    return CandidateRecord(
        index=job.index,
        ref=job.ref,
        commit=job.commit,
        parent_ref=job.parent_ref,
        status=status,
        duration_s=time.monotonic() - started,
        sandbox=job.sandbox.describe(),
        **fields,
    )


def _measure(job: MeasureJob, dest: Path, started: float) -> CandidateRecord:
    from core.integrity.materialize import materialize, overlay_trusted_suite
    from core.integrity.merge_base import guard_candidate, overlay_trusted_inputs
    from core.runner import run_evaluator

    config = job.config
    remove_tree(dest)
    materialize(job.repo, job.commit, dest)
    judgement = guard_candidate(job.repo, job.baseline_commit, job.commit, config)
    report = judgement.report
    findings = tuple(FindingRecord.from_finding(f) for f in report.findings)
    if report.verdict == "rejected":
        codes = ", ".join(sorted({f.code for f in findings if f.severity == "reject"}))
        return _record(job, "rejected", started, findings=findings, reason=f"integrity: {codes}")
    overlay_trusted_suite(job.baseline_dir, dest, config)
    if judgement.based_on is not None:  # an older candidate: the current inputs, never its older ones
        overlay_trusted_inputs(job.baseline_dir, dest, config)
    run = run_evaluator(
        config.command,
        dest,
        timeout_s=config.timeout_s,
        sandbox=job.sandbox,
        extra_env=dict(job.extra_env) or None,
        isolation=_isolation(job),
        interpreter=job.interpreter,
    )
    suite_dir = dest / config.evaluation_dir
    during = tuple(FindingRecord.from_finding(f) for f in _rehash(job, suite_dir))
    outputs: dict[str, Any] = {"stdout_tail": tail(run.stdout), "stderr_tail": tail(run.stderr)}
    outputs["not_isolated"] = not_isolated_reason(run)
    outputs["based_on"] = judgement.note()
    if any(f.severity == "reject" for f in during):
        codes = ", ".join(sorted({f.code for f in during}))
        return _record(
            job,
            "rejected",
            started,
            findings=findings + during,
            reason=f"integrity during the run: {codes}",
            **outputs,
        )
    findings += during
    failure = classify_failure(run)
    if failure:
        return _record(job, "failed", started, findings=findings, reason=failure, **outputs)
    parsed = parse_stdout(run.stdout)
    if parsed.score is None:
        return _record(
            job, "failed", started, findings=findings, reason=f"no score: {parsed.reason}", **outputs
        )
    return _record(
        job,
        "scored",
        started,
        score=parsed.score.value,
        metric_name=parsed.score.name,
        findings=findings,
        per_item_scores=_read_per_item(suite_dir / "result.json"),
        **outputs,
    )


def not_isolated_reason(run: RunResult) -> str:
    """Why this run's candidate code did not (provably) run only in its own sandbox ('' when it did)."""
    if run.not_isolated:
        return run.not_isolated
    if run.not_isolated is not None and run.ok and run.candidate_launches == 0:
        return "the evaluator never ran the entry point, so any candidate code it ran shared its sandbox"
    return ""


def _isolation(job: MeasureJob) -> Isolation:
    from core.run.isolation import Isolation, resolve_holdout

    holdout = resolve_holdout(job.config.holdout_dir, job.repo)
    isolation = Isolation.from_config(job.config, holdout, workspace=job.repo)
    return dataclasses.replace(isolation, evaluator_network=True) if job.evaluator_network else isolation


def _rehash(job: MeasureJob, suite_dir: Path) -> list[Finding]:
    """IN009 after the run; a suite the run left impossible to re-hash is itself IN009 (never a crash)."""
    from core.integrity.findings import reject
    from core.integrity.guard import rehash_findings

    try:
        return rehash_findings(job.suite_snapshot, suite_dir, job.config)
    except (ProctorError, OSError, RecursionError, MemoryError) as exc:
        detail = f"the suite could not be re-hashed after the run ({type(exc).__name__}: {exc})"
        return [reject("IN009", job.config.evaluation_dir, detail)]


def classify_failure(run: RunResult) -> str:
    """Why a run is `failed` before its output is even parsed ('' when it is not)."""
    reason = run.failure_reason()
    if reason:
        return reason
    if not run.stdout_valid_utf8:
        # The runner decodes with errors="replace"; a U+FFFD the evaluator printed itself is valid UTF-8.
        return "the evaluator's stdout is not valid UTF-8"
    return ""


def _read_per_item(path: Path) -> tuple[float, ...] | None:
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > RESULT_JSON_LIMIT:
            return None
        data = json.loads(path.read_bytes().decode("utf-8"), parse_constant=lambda _c: None)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    items = per_item_scores(data)
    return tuple(items) if items is not None else None


# ------------------------------------------------------------------------------------- worker process setup


def init_worker(parent_pid: int) -> None:
    """Pool initializer: die with the campaign process, taking any running evaluator group along.

    A kill -9 of the campaign would otherwise leave idle workers blocked forever and a hung evaluator running.
    The kernel sends SIGTERM when the parent dies; the handler kills our children's process groups.
    """
    signal.signal(signal.SIGTERM, _terminate_children)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        _terminate_children(signal.SIGTERM, None)


def _terminate_children(_signum: int, _frame: FrameType | None) -> None:
    kill_children()
    os._exit(1)


def kill_children() -> None:
    """SIGKILL this process's children and their process groups (a running evaluator and what it started)."""
    for pid in _child_pids(os.getpid()):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _child_pids(parent: int) -> list[int]:
    found = []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    stat = handle.read().decode("ascii", "replace")
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[-1].split()
            if len(fields) > 2 and fields[1] == str(parent):
                found.append(int(entry))
    return found
