"""The guard's tree view of two workspace directories (`proctor guard --baseline DIR --candidate DIR`).

Both sides are listed with one walk each; files are hashed only where sizes agree and some check reads the
bytes (`context.content_relevant`), so a large data directory outside the protected paths costs a listing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import IntegrityError
from core.integrity.classify import is_junk, within
from core.integrity.context import Change, Entry, content_relevant, suite_rel
from core.integrity.manifest import FileInfo, hash_files, manifest_fingerprint, protected_inputs, scan

if TYPE_CHECKING:
    from core.integrity.settings import GuardConfig


def _entry(info: FileInfo) -> Entry | None:
    return None if info.kind == "dir" else Entry(info.kind, info.executable)


@dataclass
class DirectoryView:
    """Two workspace directories described by walking and hashing (only what a check can read is hashed)."""

    base: Path
    cand: Path
    config: GuardConfig
    changes: dict[str, Change] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.suite = suite_rel(self.config)
        for side, root in (("baseline", self.base), ("candidate", self.cand)):
            if not root.is_dir():
                raise IntegrityError(f"the {side} tree {str(root)!r} is not a directory")
        suite_dir = self.base / self.suite
        if suite_dir.is_symlink() or not suite_dir.is_dir():
            raise IntegrityError(f"the baseline tree {self.base} has no suite directory {self.suite}/")
        self.old_listing = scan(self.base, skip_root_git=True)
        self.new_listing = scan(self.cand, skip_root_git=True)
        self._base_suite: dict[str, Entry] | None = None
        self._digests: dict[tuple[str, str], str] = {}
        hash_old = [
            rel for rel, info in self.old_listing.items() if info.kind == "file" and within(rel, self.suite)
        ]
        hash_new = self._pair(hash_old)
        self._hash(self.base, hash_old, "old")
        self._hash(self.cand, hash_new, "new")
        for rel in hash_new:
            eo, en = _entry(self.old_listing[rel]), _entry(self.new_listing[rel])
            content = self._digests[("old", rel)] != self._digests[("new", rel)]
            if content or (eo and en and eo.executable != en.executable):
                self.changes[rel] = Change(rel, eo, en, content)

    def _pair(self, hash_old: list[str]) -> list[str]:
        """Record every change the listings show by themselves; the files whose bytes must be compared
        (added to `hash_old` too when the baseline side is not hashed already)."""
        inputs = protected_inputs(self.config)
        old, new = self.old_listing, self.new_listing
        queued = set(hash_old)
        hash_new: list[str] = []
        for rel in sorted(old.keys() | new.keys()):
            o, n = old.get(rel), new.get(rel)
            eo, en = (_entry(o) if o else None), (_entry(n) if n else None)
            if eo is None and en is None:
                continue
            if o is None or n is None or eo is None or en is None:
                self.changes[rel] = Change(rel, eo, en, True)
            elif self._compare(rel, (o, n), (eo, en), inputs):
                hash_new.append(rel)
                if rel not in queued:
                    hash_old.append(rel)
                    queued.add(rel)
        return hash_new

    def _compare(
        self, rel: str, infos: tuple[FileInfo, FileInfo], entries: tuple[Entry, Entry], inputs: list[str]
    ) -> bool:
        """Record the change between two present entries when no hashing is needed; whether it is."""
        (o, n), (eo, en) = infos, entries
        if eo.kind != en.kind:
            self.changes[rel] = Change(rel, eo, en, True)
        elif eo.kind == "symlink":
            if os.readlink(self.base / rel) != os.readlink(self.cand / rel):
                self.changes[rel] = Change(rel, eo, en, True)
        elif eo.kind == "file":
            relevant = content_relevant(rel, self.suite, inputs)
            if relevant and o.size == n.size:
                return True
            if relevant:
                self.changes[rel] = Change(rel, eo, en, True)
            elif eo.executable != en.executable:
                self.changes[rel] = Change(rel, eo, en, False)
        return False

    def _hash(self, root: Path, rels: list[str], side: str) -> None:
        listing = self.old_listing if side == "old" else self.new_listing
        total = sum(listing[rel].size for rel in rels)
        for rel, digest in zip(
            rels, hash_files([root / rel for rel in rels], total_bytes=total), strict=True
        ):
            self._digests[(side, rel)] = digest

    def evaluator_id(self) -> str:
        manifest = {}
        for rel, info in self.old_listing.items():
            if within(rel, self.suite) and info.kind == "file" and not is_junk(rel[len(self.suite) + 1 :]):
                manifest[rel[len(self.suite) + 1 :]] = self._digests[("old", rel)]
        return manifest_fingerprint(manifest)

    def validate(self) -> None:
        self.baseline_suite()  # refuses a baseline suite holding a symlink

    def baseline_has(self, path: str) -> bool:
        return path in self.baseline_suite()

    def baseline_suite(self) -> dict[str, Entry]:
        if self._base_suite is not None:
            return self._base_suite
        suite: dict[str, Entry] = {}
        for rel, info in self.old_listing.items():
            if not within(rel, self.suite) or rel == self.suite:
                continue
            if info.kind == "symlink" and not is_junk(rel[len(self.suite) + 1 :]):
                raise IntegrityError(
                    f"the baseline suite contains a symlink: {rel} (Kapso cannot fingerprint it either)"
                )
            entry = _entry(info)
            if entry is not None:
                suite[rel] = entry
        self._base_suite = suite
        return suite

    def baseline_under(self, root: str) -> dict[str, bool]:
        return {rel: info.kind == "dir" for rel, info in self.old_listing.items() if within(rel, root)}

    def suite_sources(self) -> dict[str, str]:
        return {
            rel: (self.base / rel).read_text("utf-8", "replace")
            for rel, info in self.old_listing.items()
            if within(rel, self.suite) and info.kind == "file" and rel.endswith(".py") and not is_junk(rel)
        }

    def _read(self, root: Path, listing: dict[str, FileInfo], path: str) -> bytes | None:
        info = listing.get(path)
        if info is None:
            return None
        if info.kind == "symlink":
            return os.fsencode(os.readlink(root / path))
        if info.kind == "file":
            return (root / path).read_bytes()
        return None

    def read_old(self, path: str) -> bytes | None:
        return self._read(self.base, self.old_listing, path)

    def read_new(self, path: str) -> bytes | None:
        return self._read(self.cand, self.new_listing, path)

    def new_kind(self, path: str) -> str | None:
        info = self.new_listing.get(path)
        return info.kind if info else None

    def prefetch(self, paths: list[str]) -> None:
        """Files are read on demand; nothing to batch."""
