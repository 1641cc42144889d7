"""The registered suite's baseline (SPEC §8's live integrity): the registry head, the suite whose per-file
manifest has the head's fingerprint, and the findings for the whole suite tree (deleted and new files).

Kapso's registry entries carry only the fingerprint (`evaluator_id`), so the baseline is the first of these
suites whose fingerprint equals the head's id: the manifest remembered from an earlier session, the working
tree on disk, the `HEAD` commit, then up to 20 earlier commits that touched the suite (hardened git,
`core.integrity.git`). When none matches, the suite is known to differ but not where, and that is what is
reported.

The registry reader, the suite hasher and hardened git load with this module, which `Engine.refresh_integrity`
imports only once the workspace has a registry: a workspace without one (most, and every first lint of one)
never pays for them.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from core.atomic import atomic_write_json
from core.diagnostics import Diagnostic
from core.errors import ProctorError
from core.integrity.classify import is_source
from core.integrity.git import run_git_bytes
from core.integrity.manifest import git_manifest, manifest_fingerprint, snapshot
from core.registry import head as registry_head
from core.treewalk import walk
from lsp_server.integrity import CONSEQUENCE, Baseline, Head, deleted_finding, finding_at_top, in_manifest

_MAX_COMMITS = 20
CACHE_DIR = ".proctor/evaluator-manifests"


def read_head(root: Path) -> Head | None:
    """The registry's newest version (`core.registry.head`), or None when the suite is not registered or the
    registry is unreadable (then there is no baseline to compare with, so nothing is flagged)."""
    try:
        entry = registry_head(root)
    except (ProctorError, OSError, ValueError):
        return None
    return None if entry is None else Head(entry.evaluator_id, entry.version)


def _disk_manifest(root: Path, suite: str) -> dict[str, str] | None:
    try:
        return snapshot(root / suite).manifest
    except (ProctorError, OSError):
        return None


def _git_manifest(root: Path, rev: str, suite: str) -> dict[str, str] | None:
    try:
        return git_manifest(root, rev, suite)
    except (ProctorError, OSError):
        return None


def _cache_path(root: Path, evaluator_id: str) -> Path:
    return root / CACHE_DIR / f"{evaluator_id}.json"


def _cached_manifest(root: Path, evaluator_id: str) -> dict[str, str] | None:
    """A manifest remembered from an earlier session; trusted only because it hashes to the id."""
    try:
        data = json.loads(_cache_path(root, evaluator_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        return None
    return data if manifest_fingerprint(data) == evaluator_id else None


def _remember(root: Path, evaluator_id: str, manifest: Mapping[str, str]) -> None:
    with contextlib.suppress(OSError):  # a read-only workspace only loses the cache
        atomic_write_json(_cache_path(root, evaluator_id), dict(manifest))


def find_baseline(root: Path, suite: str, head: Head) -> Baseline:
    """The suite whose fingerprint is the head's: remembered, working tree, HEAD, then earlier commits.

    A manifest found on disk or in git is remembered under `.proctor/` (git-ignored), so edits made before
    the next session still have a per-file baseline.
    """
    suite = suite.strip("/")
    cached = _cached_manifest(root, head.evaluator_id)
    if cached is not None:
        return Baseline(head, suite, cached, "the remembered manifest")
    on_disk = _disk_manifest(root, suite)
    if on_disk is not None and manifest_fingerprint(on_disk) == head.evaluator_id:
        _remember(root, head.evaluator_id, on_disk)
        return Baseline(head, suite, on_disk, "the working tree")
    if (root / ".git").exists():
        try:
            listed = run_git_bytes(
                root, "rev-list", f"--max-count={_MAX_COMMITS}", "HEAD", "--", suite, check=False
            )
        except (ProctorError, OSError):
            listed = b""
        for rev in dict.fromkeys(["HEAD", *listed.decode().split()]):
            manifest = _git_manifest(root, rev, suite)
            if manifest is not None and manifest_fingerprint(manifest) == head.evaluator_id:
                _remember(root, head.evaluator_id, manifest)
                return Baseline(head, suite, manifest, f"commit {rev[:12]}")
    return Baseline(head, suite, None, "")


def suite_files(root: Path, suite: str) -> list[str]:
    """Workspace-relative posix paths of every file under the suite (symlinks not followed)."""
    found: list[str] = []
    for directory, dirnames, filenames in walk(root / suite):  # iterative, any depth
        dirnames.sort()
        found.extend((Path(directory) / name).relative_to(root).as_posix() for name in sorted(filenames))
    return found


def ignored_by_git(root: Path, relpaths: list[str]) -> set[str]:
    """Untracked files git ignores (a local `__pycache__`): no candidate commit carries them."""
    if not relpaths or not (root / ".git").exists():
        return set()
    try:
        out = run_git_bytes(
            root, "check-ignore", "-z", "--stdin", check=False, input="\0".join(relpaths).encode() + b"\0"
        )
    except (ProctorError, OSError):
        return set()
    return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}


def tree_findings(root: Path, baseline: Baseline, skip: Iterable[str]) -> list[Diagnostic]:
    """IN002 for each registered file missing on disk, IN005 for new source files on disk (`skip`: open
    buffers, which get their own findings). Each diagnostic's `path` is the affected file."""
    if baseline.manifest is None:
        return []
    skipped = set(skip)
    version = baseline.head.version
    files = suite_files(root, baseline.suite)
    new = [p for p in files if p not in skipped and not in_manifest(baseline, p)]
    found: list[Diagnostic] = []
    for relpath in sorted(set(new) - ignored_by_git(root, new)):
        path = root / relpath
        try:
            with path.open("rb") as handle:
                head = handle.read(2)
            executable = os.access(path, os.X_OK)
        except OSError:
            continue
        if is_source(relpath, executable=executable, head=head):
            message = f"new source file `{relpath}` in registered suite version {version}; {CONSEQUENCE}"
            found.append(finding_at_top(relpath, "IN005", message))
    present = set(files) | skipped
    missing = sorted(
        f"{baseline.suite}/{key}" for key in baseline.manifest if f"{baseline.suite}/{key}" not in present
    )
    found.extend(deleted_finding(baseline, relpath) for relpath in missing)
    return found
