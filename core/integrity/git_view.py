"""The guard's tree view of two commits, read from git objects alone (`proctor guard --baseline REF ...`).

Equal root trees mean an identical candidate; otherwise `git_trees.diff_trees` opens only subtrees whose
ids differ, so an unchanged suite (or data dir) costs one id comparison. Suite listings, evaluator ids and
suite sources are cached by tree id (content, so never stale), the ids also on disk in the git dir.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.atomic import atomic_write_json
from core.errors import IntegrityError
from core.integrity import git as gitcmd
from core.integrity.classify import ancestors, has_git_component, is_junk, within
from core.integrity.context import Change, Entry, suite_rel
from core.integrity.git_trees import diff_trees, parse_tree
from core.integrity.manifest import manifest_fingerprint
from core.integrity.object_store import object_store

if TYPE_CHECKING:
    from core.integrity.settings import GuardConfig


_MODES = {"100644": Entry("file"), "100664": Entry("file"), "100755": Entry("file", True)}
_MODES |= {"120000": Entry("symlink"), "160000": Entry("submodule")}
# Keyed by (repository, suite path, suite tree id): tree ids are content, so entries never go stale.
_SUITE_CACHE: dict[tuple[str, str, str], tuple[dict[str, Entry], dict[str, str]]] = {}
_ID_CACHE: dict[tuple[str, str], str] = {}
_SOURCES_CACHE: dict[tuple[str, str, str], dict[str, str]] = {}


def _mode_entry(mode: str) -> Entry | None:
    if set(mode) <= {"0"}:
        return None
    return _MODES.get(mode, Entry("special"))


@dataclass
class GitView:
    """Two commits described from git objects through the repository's persistent `ObjectStore`.

    Equal root trees mean an identical candidate; otherwise `diff_trees` opens only subtrees whose ids
    differ, so an unchanged suite (or data dir) costs one id comparison and the checks only see what changed.
    """

    repo: Path
    base: str
    cand: str
    config: GuardConfig
    base_tree: str
    cand_tree: str
    suite_tree: str
    changes: dict[str, Change] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.suite = suite_rel(self.config)
        self.store = object_store(self.repo)
        self._key = (str(self.repo), self.suite, self.suite_tree)
        self._oids: dict[tuple[str, str], str] = {}
        self._blobs: dict[str, bytes] = {}
        self._kinds: dict[str, str | None] = {}
        if self.base_tree == self.cand_tree:
            return
        raws = diff_trees(self.store, self.base_tree, self.cand_tree)
        if raws is None:  # an unusual tree object: let git itself read it
            raws = gitcmd.diff_tree(self.repo, self.base, self.cand)
        for raw in raws:
            old, new = _mode_entry(raw.old_mode), _mode_entry(raw.new_mode)
            if old is not None:
                self._oids[("old", raw.path)] = raw.old_oid
            if new is not None:
                self._oids[("new", raw.path)] = raw.new_oid
            self.changes[raw.path] = Change(raw.path, old, new, raw.old_oid != raw.new_oid)

    def _suite_listing(self) -> tuple[dict[str, Entry], dict[str, str]]:
        if self._key not in _SUITE_CACHE:
            entries: dict[str, Entry] = {}
            oids: dict[str, str] = {}
            for item in gitcmd.ls_tree(self.repo, self.suite_tree):
                rel = f"{self.suite}/{item.path}"
                if has_git_component(item.path):
                    continue
                entry = _mode_entry(item.mode)
                if entry is None:
                    continue
                if entry.kind == "symlink" and not is_junk(item.path):
                    raise IntegrityError(
                        f"the baseline suite contains a symlink: {rel} (Kapso cannot fingerprint it either)"
                    )
                entries[rel] = entry
                oids[rel] = item.oid
            _SUITE_CACHE[self._key] = (entries, oids)
        return _SUITE_CACHE[self._key]

    def validate(self) -> None:
        """Refuse a baseline suite holding a symlink. An evaluator id is only ever recorded for a suite tree
        that was listed without one, so a known id proves it without listing the tree again."""
        self.evaluator_id()

    def evaluator_id(self) -> str:
        key = (str(self.repo), self.suite_tree)
        if key in _ID_CACHE:
            return _ID_CACHE[key]
        cache_file = _id_cache_file(self.repo)
        stored = _load_id_cache(cache_file)
        if self.suite_tree in stored:
            _ID_CACHE[key] = stored[self.suite_tree]
            return stored[self.suite_tree]
        entries, oids = self._suite_listing()
        wanted = [
            rel
            for rel, entry in entries.items()
            if entry.kind == "file" and not is_junk(rel[len(self.suite) + 1 :])
        ]
        digests = {
            oid: hashlib.sha256(data).hexdigest()
            for oid, data in gitcmd.iter_blobs(self.repo, [oids[r] for r in wanted])
        }
        manifest = {
            rel[len(self.suite) + 1 :]: digests[oids[rel]]
            for rel in sorted(wanted, key=lambda r: r.split("/"))
        }
        evaluator_id = manifest_fingerprint(manifest)
        _ID_CACHE[key] = evaluator_id
        if cache_file is not None:
            stored[self.suite_tree] = evaluator_id
            with contextlib.suppress(OSError):
                atomic_write_json(cache_file, stored)
        return evaluator_id

    def baseline_suite(self) -> dict[str, Entry]:
        return self._suite_listing()[0]

    def baseline_has(self, path: str) -> bool:
        """Whether the baseline suite lists `path`, from the one suite tree object when it sits at the top."""
        name = path[len(self.suite) + 1 :] if within(path, self.suite) else ""
        if self._key in _SUITE_CACHE or not name or "/" in name or has_git_component(name):
            return path in self.baseline_suite()
        ((info, data),) = self.store.objects([self.suite_tree])
        entries = parse_tree(data, len(self.suite_tree) // 2) if info.type == "tree" else None
        if entries is None:
            return path in self.baseline_suite()
        wanted = name.encode("utf-8", "surrogateescape")
        return any(entry_name == wanted and mode != 0o40000 for mode, entry_name, _ in entries)

    def baseline_under(self, root: str) -> dict[str, bool]:
        (info,) = self.store.info([f"{self.base}:{root}"])
        if info.type == "blob":
            return {root: False}
        if info.type != "tree" or info.oid is None:
            return {}
        listing: dict[str, bool] = {}
        for item in gitcmd.ls_tree(self.repo, info.oid):
            rel = f"{root}/{item.path}"
            listing[rel] = False
            for anc in ancestors(rel):
                if within(anc, root) and anc != root:
                    listing[anc] = True
        return listing

    def suite_sources(self) -> dict[str, str]:
        if self._key not in _SOURCES_CACHE:
            entries, oids = self._suite_listing()
            wanted = [
                rel
                for rel, entry in entries.items()
                if entry.kind == "file" and rel.endswith(".py") and not is_junk(rel)
            ]
            blobs = gitcmd.read_blobs(self.repo, [oids[rel] for rel in wanted])
            _SOURCES_CACHE[self._key] = {rel: blobs[oids[rel]].decode("utf-8", "replace") for rel in wanted}
        return _SOURCES_CACHE[self._key]

    def prefetch(self, paths: list[str]) -> None:
        """Read the candidate side of many changed paths in one exchange with the store."""
        oids = [self._oids[("new", p)] for p in paths if ("new", p) in self._oids]
        missing = [oid for oid in oids if oid not in self._blobs]
        if missing:
            self._blobs.update(self.store.blobs(missing))

    def _read(self, side: str, path: str) -> bytes | None:
        oid = self._oids.get((side, path))
        if oid is None:
            commit = self.base if side == "old" else self.cand
            (info,) = self.store.info([f"{commit}:{path}"])
            if info.type != "blob" or info.oid is None:
                return None
            oid = info.oid
        if oid not in self._blobs:
            self._blobs.update(self.store.blobs([oid]))
        return self._blobs.get(oid)

    def read_old(self, path: str) -> bytes | None:
        return self._read("old", path)

    def read_new(self, path: str) -> bytes | None:
        return self._read("new", path)

    def new_kind(self, path: str) -> str | None:
        change = self.changes.get(path)
        if change is not None and change.new is not None:
            return change.new.kind
        if path not in self._kinds:
            (info,) = self.store.info([f"{self.cand}:{path}"])
            self._kinds[path] = {"tree": "dir", "blob": "file", "commit": "submodule"}.get(info.type or "")
        return self._kinds[path]


def _id_cache_file(repo: Path) -> Path | None:
    """Where evaluator ids are remembered per suite tree id: inside the repository's git dir, never committed."""
    state = gitcmd.state_dir(repo)
    return state / "evaluator-ids.json" if state is not None else None


def _load_id_cache(path: Path | None) -> dict[str, str]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}
