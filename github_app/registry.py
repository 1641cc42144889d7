"""The app's evaluator registry: core's registry (`core.registry`), one workspace per repository in the
data dir, so `/proctor accept-evaluator` appends a version exactly as `proctor registry register` does."""

from __future__ import annotations

import hashlib
from pathlib import Path

from core.errors import GitError
from core.registry import EvaluatorRef, RegistryEntry, load_registry, register


def workspace(data_dir: Path, repo: str) -> Path:
    digest = hashlib.sha256(repo.lower().encode()).hexdigest()[:16]
    path = data_dir / "registry" / digest
    path.mkdir(parents=True, exist_ok=True)
    return path


def evaluator_ref(data_dir: Path, repo: str, evaluator_id: str) -> EvaluatorRef:
    """The registered version of `evaluator_id`; version 0 when it is not registered."""
    from core.campaign.setup import evaluator_identity

    return evaluator_identity(workspace(data_dir, repo), evaluator_id)


def suite_id(mirror: Path, commit: str, suite: str) -> str | None:
    """The evaluator id of the suite at `commit` (None when the commit has no suite)."""
    from core.integrity.manifest import git_manifest, manifest_fingerprint

    try:
        return manifest_fingerprint(git_manifest(mirror, commit, suite))
    except GitError:
        return None


def accept(
    data_dir: Path, repo: str, base_suite_dir: Path, head_suite_dir: Path, reason: str
) -> RegistryEntry:
    """Register the PR's suite as a new `provided` version; the base's suite first becomes v1 if needed."""
    ws = workspace(data_dir, repo)
    if not load_registry(ws):
        register(ws, base_suite_dir, "provided", f"the base suite of {repo} when a new version was accepted")
    return register(ws, head_suite_dir, "provided", reason)
