"""The guard (SPEC §4.2): does a candidate leave the measurement exactly as the baseline defined it?

Both entry points reduce a baseline/candidate pair to the same description, a `TreeView` (`context`):
a map of changed paths (old and new type, executable bit, whether the bytes differ) plus readers for either
side. `guard_trees` builds it by walking two directories (`tree_view`); `guard_refs` from git objects
(`git_view`), opening only subtrees whose ids differ. `judge_view` is one loop over the integrity checks of
`core/integrity/checks/` (the rule table), each a function of the same `GuardContext`, which is why the
two entry points agree. IN009 is decided after a run, from a snapshot taken at launch (`rehash_findings`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from core.errors import GitError, IntegrityError
from core.integrity.checks import GUARD_CHECKS, changed_during_run
from core.integrity.checks.stale_result_json_at_launch import stale_finding
from core.integrity.context import GuardContext, TreeView, suite_rel
from core.integrity.findings import Finding
from core.integrity.git_view import GitView
from core.integrity.manifest import protected_inputs
from core.integrity.modules import INSTALLED, ModuleProvider
from core.integrity.object_store import object_store, resolve_commits
from core.integrity.tree_view import DirectoryView

if TYPE_CHECKING:
    from core.integrity.manifest import SuiteSnapshot
    from core.integrity.settings import GuardConfig

Verdict = Literal["accepted", "rejected"]


@dataclass(frozen=True)
class GuardReport:
    verdict: Verdict
    evaluator_id: str
    findings: tuple[Finding, ...]

    def to_json(self) -> dict[str, object]:
        """SPEC §6 `guard --format json`, schema 1; each finding also carries its rule doc's `url`."""
        return {
            "schema": 1,
            "verdict": self.verdict,
            "evaluator_id": self.evaluator_id,
            "findings": [{**finding.to_json(), "url": finding.url} for finding in self.findings],
        }


def judge_view(
    view: TreeView, config: GuardConfig, command: str, modules: ModuleProvider = INSTALLED
) -> list[Finding]:
    """Every guard check over one context; rejections first, then by code, path and detail."""
    ctx = GuardContext(view, suite_rel(config), protected_inputs(config), command, modules)
    view.validate()
    ctx.prefetch()
    findings = {finding for check in GUARD_CHECKS for finding in check.check(ctx)}
    return sorted(findings, key=lambda f: (f.severity != "reject", f.code, f.path, f.detail))


def _report(view: TreeView, config: GuardConfig, command: str | None) -> GuardReport:
    findings = judge_view(view, config, command or config.command)
    verdict: Verdict = "rejected" if any(f.severity == "reject" for f in findings) else "accepted"
    return GuardReport(verdict, view.evaluator_id(), tuple(findings))


def guard_trees(
    baseline_dir: Path, candidate_dir: Path, config: GuardConfig, *, command: str | None = None
) -> GuardReport:
    """Guard a candidate working tree against a baseline working tree (both workspace roots)."""
    return _report(DirectoryView(Path(baseline_dir), Path(candidate_dir), config), config, command)


def guard_refs(repo: Path, baseline_ref: str, candidate_ref: str, config: GuardConfig) -> GuardReport:
    """Guard two commits of `repo` from git objects alone (never the working tree).

    Commit ids cost no git process once the repository's store is running; ref names cost one (refs are
    never read through a long-lived process, see `ObjectStore`).
    """
    repo = Path(repo)
    suite = suite_rel(config)
    base, cand = resolve_commits(repo, [baseline_ref, candidate_ref])
    store = object_store(repo)
    base_tree, cand_tree = store.require([f"{base}^{{tree}}", f"{cand}^{{tree}}"])
    if base_tree.oid is None or cand_tree.oid is None:
        raise GitError(f"git cat-file failed in {repo}: the tree of {base[:12]} or {cand[:12]} is missing")
    (tree,) = store.info([f"{base}:{suite}"])
    if tree.type != "tree" or tree.oid is None:
        raise IntegrityError(f"the baseline commit {base[:12]} has no suite directory {suite}/")
    view = GitView(repo, base, cand, config, base_tree.oid, cand_tree.oid, tree.oid)
    return _report(view, config, None)


# ------------------------------------------------------------------------------------ around the run


def check_stale_result(workspace_or_tree: Path, config: GuardConfig) -> Finding | None:
    """IN006: `<suite>/result.json` in the baseline would be protected and mistaken for a fresh result."""
    suite = suite_rel(config)
    if os.path.lexists(Path(workspace_or_tree) / suite / "result.json"):
        return stale_finding(suite)
    return None


def refuse_stale_result(workspace_or_tree: Path, config: GuardConfig) -> None:
    """Raise the IN006 launch refusal (one line saying what to do) when the baseline has a result.json."""
    finding = check_stale_result(workspace_or_tree, config)
    if finding is not None:
        raise IntegrityError(f"{finding.code}: refusing to launch: {finding.detail}", code=finding.code)


def rehash_findings(before: SuiteSnapshot, suite_dir: Path, config: GuardConfig) -> list[Finding]:
    """IN009 after a run: a protected file changed, or a new source file or symlink appeared in the suite."""
    return changed_during_run.after_run(before, suite_dir, config)
