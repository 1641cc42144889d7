"""A candidate that predates an evaluator change is measured, not blamed.

The guard compares a candidate with the baseline. After a commit on the baseline branch edits the suite (or
the data, the brief, a protected path), every candidate branched before it differs from the baseline there,
although its own diff never touched them. So when the only rejections are suite or protected-input changes
(IN001-IN005, IN010), the candidate is judged again against each merge base with the baseline — commits of
the baseline's own, trusted history. Unchanged since there: it is measured under the baseline's suite *and*
protected inputs (both overlaid, so an older data set is never scored) and the record says so. Changed since
there: rejected, with the findings of its own change. Everything else (hooks IN007, git attacks IN008) keeps the first verdict, judged on
the candidate's tree as it is. Grafts and replace refs are ignored by every git command Proctor makes, and a
shallow repository (whose boundary commits look like roots) is never re-judged.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from core.errors import GitError, IntegrityError
from core.integrity.git import run_git
from core.integrity.guard import GuardReport, guard_refs
from core.integrity.manifest import protected_inputs
from core.integrity.settings import GuardConfig
from core.treewalk import remove_tree

REJUDGED = frozenset({"IN001", "IN002", "IN003", "IN004", "IN005", "IN010"})


@dataclass(frozen=True)
class Judgement:
    """The guard's verdict; `based_on` is the merge base when the candidate is measured as an older one."""

    report: GuardReport
    based_on: str | None = None

    def note(self) -> str:
        if self.based_on is None:
            return ""
        return f"based on an older evaluator (commit {self.based_on[:10]}); measured under the current one"


def guard_candidate(repo: Path, baseline: str, candidate: str, config: GuardConfig) -> Judgement:
    """Guard `candidate` against `baseline` (commit ids), judging it by what it changed since its merge
    base when the baseline's suite or protected inputs moved on after it branched."""
    report = guard_refs(repo, baseline, candidate, config)
    rejects = {f.code for f in report.findings if f.severity == "reject"}
    if report.verdict == "accepted" or not rejects <= REJUDGED:
        return Judgement(report)
    bases = _merge_bases(repo, baseline, candidate)
    if not bases or baseline in bases:
        return Judgement(report)
    older: GuardReport | None = None
    for base in bases:
        try:
            older = guard_refs(repo, base, candidate, config)
        except (IntegrityError, GitError):
            return Judgement(report)  # e.g. no suite at the merge base: nothing to compare with
        if older.verdict != "accepted":
            return Judgement(older)  # rejected for what it changed itself, not for the baseline's later edits
    assert older is not None
    return Judgement(older, bases[0])


def _merge_bases(repo: Path, baseline: str, candidate: str) -> list[str]:
    """Every merge base of the two commits; none for unrelated histories or a shallow repository."""
    if run_git(repo, "rev-parse", "--is-shallow-repository").strip() == "true":
        return []
    text = run_git(repo, "merge-base", "--all", baseline, candidate, check=False)
    return [line.strip() for line in text.splitlines() if line.strip()]


def overlay_trusted_inputs(baseline_dir: Path, candidate_dir: Path, config: GuardConfig) -> None:
    """Replace the candidate's protected inputs (data dir, brief, protected_paths) by the baseline's."""
    for rel in protected_inputs(config):
        source, target = Path(baseline_dir) / rel, Path(candidate_dir) / rel
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.exists():
            remove_tree(target)
        if source.is_symlink() or not source.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True)
        else:
            shutil.copyfile(source, target, follow_symlinks=False)
