"""What `proctor guard` compares: two commits, two directories, or one of each, and whose config decides.

An existing directory is a working tree, anything else a ref in the repository. Two refs are guarded from
git objects alone with the config as committed in the baseline (`config_at`); otherwise the ref side is
materialized into a temporary directory and the baseline directory's config is loaded. The CLI only renders.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.integrity.guard import GuardReport
    from core.integrity.manifest import SuiteSnapshot
    from core.integrity.settings import GuardConfig


def guard_sides(repo: Path, baseline: str, candidate: str) -> GuardReport:
    """Guard `candidate` against `baseline`, each a directory or a ref in `repo`."""
    from core.integrity.guard import guard_refs, guard_trees

    base_is_dir, cand_is_dir = Path(baseline).is_dir(), Path(candidate).is_dir()
    if not base_is_dir and not cand_is_dir:
        from core.integrity.object_store import resolve_commits

        base_commit, cand_commit = resolve_commits(repo, [baseline, candidate])
        return guard_refs(repo, base_commit, cand_commit, config_at(repo, base_commit))
    from core.config import load_config
    from core.integrity.materialize import materialize

    with tempfile.TemporaryDirectory(prefix="proctor-guard-") as tmp:
        base_dir = Path(baseline) if base_is_dir else Path(tmp) / "baseline"
        cand_dir = Path(candidate) if cand_is_dir else Path(tmp) / "candidate"
        if not base_is_dir:
            materialize(repo, baseline, base_dir)
        if not cand_is_dir:
            materialize(repo, candidate, cand_dir)
        return guard_trees(base_dir, cand_dir, load_config(base_dir).config)


def config_at(repo: Path, commit: str) -> GuardConfig:
    """The config as committed in `commit` (the baseline's, never the candidate's).

    pydantic is imported only for a config file it has not accepted before: without one the defaults need
    no validation, and an accepted one is remembered by blob id (`ValidatedConfigs`).
    """
    from core.integrity.git import state_dir
    from core.integrity.object_store import object_store
    from core.integrity.settings import CONFIG_FILE, DEFAULTS, PYPROJECT_FILE, ValidatedConfigs

    store = object_store(repo)
    store.require([commit])  # path lookups below are trusted only once the store sees the commit
    infos = store.info([f"{commit}:{CONFIG_FILE}", f"{commit}:{PYPROJECT_FILE}"])
    for info, name in zip(infos, (CONFIG_FILE, PYPROJECT_FILE), strict=True):
        if info.type != "blob" or info.oid is None:
            continue
        state = state_dir(repo)
        accepted = ValidatedConfigs(state / "configs.json" if state is not None else None)
        known = accepted.get(info.oid, name)
        if known is not None:
            return known
        text = store.blobs([info.oid])[info.oid].decode("utf-8", "replace")
        if name == PYPROJECT_FILE and not _has_proctor_table(text):
            continue
        from core.config import parse_config_text

        config = parse_config_text(text, f"{commit[:12]}:{name}", pyproject=name == PYPROJECT_FILE)
        accepted.put(info.oid, name, config)
        return config
    return DEFAULTS


def _has_proctor_table(pyproject: str) -> bool:
    import tomllib

    try:
        tool = tomllib.loads(pyproject).get("tool", {})
    except tomllib.TOMLDecodeError:
        tool = {}
    return isinstance(tool, dict) and "proctor" in tool


def fingerprint_suite(suite: Path) -> SuiteSnapshot:
    """The suite's snapshot for `proctor fingerprint`; refused, as Kapso refuses, with a symlink or no file."""
    from core.errors import IntegrityError
    from core.integrity.manifest import snapshot

    snap = snapshot(suite)
    links = [rel for rel, mode in snap.modes.items() if mode["type"] == "symlink"]
    if links:
        raise IntegrityError(
            f"the suite {suite} contains a symlink: {links[0]} (Kapso cannot fingerprint it)"
        )
    if not snap.manifest:
        raise IntegrityError(f"the suite directory contains no files: {suite}")
    return snap
