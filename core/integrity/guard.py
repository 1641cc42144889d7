"""The guard (SPEC §4.2): does a candidate leave the measurement exactly as the baseline defined it?

Both entry points reduce a baseline/candidate pair to the same description: a map of changed paths (old and
new type, executable bit, whether the bytes differ) plus readers for either side. `guard_trees` builds it
by walking two directories and hashing; `guard_refs` from object ids read through the repository's
persistent git object store (`git.ObjectStore`), opening only subtrees whose ids differ, so an unchanged
suite costs one id comparison and only what differs is read. One function, `_judge`, turns that
description into findings, which is why the two agree.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from core.atomic import atomic_write_json
from core.errors import GitError, IntegrityError
from core.integrity import git as gitcmd
from core.integrity.classify import (
    SOURCE_SUFFIXES,
    ancestors,
    fold,
    has_git_component,
    is_junk,
    is_source,
    module_name,
    source_suffix,
    within,
)
from core.integrity.findings import Finding, reject
from core.integrity.gitattr import CONVERSION_ATTRS, conversions, gitmodules_paths, path_attributes, touches
from core.integrity.hooks import (
    PYTEST_FILES,
    PYTEST_SECTION_FILES,
    build_model,
    hook_findings,
    patch_findings,
    scoring_modules,
)
from core.integrity.manifest import (
    FileInfo,
    SuiteSnapshot,
    hash_files,
    input_digests,
    manifest_fingerprint,
    protected_inputs,
    scan,
    snapshot,
)

if TYPE_CHECKING:
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


@dataclass(frozen=True)
class Entry:
    kind: str  # file | symlink | submodule | special
    executable: bool = False


@dataclass(frozen=True)
class Change:
    path: str
    old: Entry | None
    new: Entry | None
    content: bool  # bytes (or symlink target) differ; meaningful when both sides are present


class _View(Protocol):
    changes: dict[str, Change]

    def validate(self) -> None: ...
    def evaluator_id(self) -> str: ...
    def baseline_suite(self) -> dict[str, Entry]: ...
    def baseline_has(self, path: str) -> bool: ...
    def baseline_under(self, root: str) -> dict[str, bool]: ...
    def suite_sources(self) -> dict[str, str]: ...
    def read_old(self, path: str) -> bytes | None: ...
    def read_new(self, path: str) -> bytes | None: ...
    def new_kind(self, path: str) -> str | None: ...
    def prefetch(self, paths: list[str]) -> None: ...


def _suite_rel(config: GuardConfig) -> str:
    rel = Path(config.evaluation_dir).as_posix().strip("/")
    if not rel or rel == "." or rel.startswith("../") or rel == "..":
        raise IntegrityError(
            f"evaluation_dir {config.evaluation_dir!r} must name a directory inside the workspace"
        )
    return rel


def _hookish(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        module_name(name) is not None
        or source_suffix(name) == ".pth"
        or name == "conftest.py"
        or path in PYTEST_FILES
        or path in PYTEST_SECTION_FILES
    )


def _content_relevant(path: str, suite: str, inputs: list[str]) -> bool:
    """Paths whose bytes some check reads; content changes elsewhere cannot change a verdict."""
    name = path.rsplit("/", 1)[-1]
    return (
        within(path, suite)
        or any(within(path, root) for root in inputs)
        or name.endswith(".brief.md")
        or name in (".gitattributes", ".gitmodules")
        or _hookish(path)
    )


# ------------------------------------------------------------------------------------------- judging


def _resolve_link(link: str, target: str) -> str | None:
    """Workspace-relative path a relative symlink points at; None when it leaves the workspace."""
    if target.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))
    if joined == ".":
        return ""
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


def _link_reaches(link: str, target: str, root: str) -> bool:
    resolved = _resolve_link(link, target)
    if resolved is not None:
        return within(resolved, root) or within(root, resolved)
    if target.startswith(("/proc/", "/dev/fd")):
        return True
    names = {fold(part) for part in target.split("/") if part}
    return fold(root.rsplit("/", 1)[-1]) in names


def _judge(view: _View, config: GuardConfig, command: str) -> list[Finding]:
    suite = _suite_rel(config)
    inputs = protected_inputs(config)
    findings: list[Finding] = []
    view.validate()
    if view.baseline_has(f"{suite}/result.json"):
        findings.append(_stale_finding(suite))
    view.prefetch(
        [
            path
            for path, change in view.changes.items()
            if change.new is not None
            and change.new.kind in ("file", "symlink")
            and _content_relevant(path, suite, inputs)
            and not any(within(path, root) for root in inputs)
            and not (within(path, suite) and change.old is not None and change.new.kind == "file")
        ]
    )
    provided: dict[str, str] = {}
    added: list[str] = []
    attr_files: list[str] = []
    for path in sorted(view.changes):
        change = view.changes[path]
        if has_git_component(path):
            continue
        old, new = change.old, change.new
        if old is None and new is not None:
            added.append(path)
        altered = new is not None and (old is None or change.content or old.kind != new.kind)
        if altered and path.rsplit("/", 1)[-1] == ".gitattributes":
            attr_files.append(path)
        if new is not None and new.kind == "symlink" and altered:
            target = (view.read_new(path) or b"").decode("utf-8", "surrogateescape")
            if within(path, suite) or within(suite, path):
                findings.append(reject("IN003", path, f"a symlink in the suite (-> {target})"))
            elif _link_reaches(path, target, suite):
                findings.append(reject("IN003", path, f"a symlink pointing into the suite (-> {target})"))
        if within(path, suite):
            findings.extend(_suite_change(view, change))
            continue
        if within(suite, path) and new is not None and new.kind != "symlink":
            findings.append(
                reject("IN003", path, f"a {new.kind} replaces a directory on the way to the suite")
            )
            continue
        root = next((r for r in inputs if within(path, r) or within(r, path)), None)
        if root is not None or path.rsplit("/", 1)[-1].endswith(".brief.md"):
            findings.append(reject("IN010", path, _input_detail(change, root or path)))
            continue
        if path == ".gitmodules" and altered:
            for sub in gitmodules_paths((view.read_new(path) or b"").decode("utf-8", "replace")):
                hit = touches(sub, [suite, *inputs])
                if hit:
                    findings.append(
                        reject("IN008", path, f"a submodule at {sub!r} overlaps the protected {hit!r}")
                    )
        if altered and new is not None and new.kind != "submodule":
            provided[path] = new.kind
    findings.extend(_attribute_findings(view, attr_files, suite, inputs))
    findings.extend(_collisions(added, suite, inputs, view.baseline_suite))
    hookish = {path: kind for path, kind in provided.items() if _hookish(path)}
    python = sorted(
        path for path, kind in provided.items() if kind == "file" and source_suffix(path) == ".py"
    )
    if hookish or python:
        model = build_model(command, suite, view.suite_sources(), view.baseline_suite())
        findings.extend(hook_findings(model, hookish, view.read_old, view.read_new, view.new_kind))
        scoring = scoring_modules(model)
        for path in python:
            text = (view.read_new(path) or b"").decode("utf-8", "replace")
            findings.extend(patch_findings(path, text, scoring))
    return sorted(set(findings), key=lambda f: (f.severity != "reject", f.code, f.path, f.detail))


def _suite_change(view: _View, change: Change) -> list[Finding]:
    path, old, new = change.path, change.old, change.new
    if old is not None and old.kind == "file" and not is_junk(path):
        if new is None:
            kind = view.new_kind(path)
            if kind in ("dir", "submodule"):
                return [reject("IN003", path, f"a protected file was replaced by a {kind}")]
            return [reject("IN002", path, "a protected file was deleted")]
        if new.kind != "file":
            return [reject("IN003", path, f"a protected file became a {new.kind}")]
        found = []
        if change.content:
            found.append(reject("IN001", path, "a protected file's content changed"))
        if old.executable != new.executable:
            state = "set" if new.executable else "cleared"
            found.append(reject("IN004", path, f"the executable bit was {state} on a protected file"))
        return found
    if new is None or new.kind in ("symlink", "submodule"):
        return []  # deleted junk is harmless; symlinks are reported above; a gitlink is an empty directory
    if new.kind == "special":
        return [reject("IN003", path, "a special file (fifo, socket or device) in the suite")]
    if old is not None and not change.content and old.kind == new.kind:
        return []  # only the exec bit of a cache file changed
    known = new.executable or source_suffix(path) in SOURCE_SUFFIXES  # a shebang can hide behind any suffix
    head = b"" if known else (view.read_new(path) or b"")[:2]
    if is_source(path, executable=new.executable, head=head):
        what = "changed" if old is not None else "new"
        why = (
            "bytecode can replace a module at import"
            if source_suffix(path) == ".pyc"
            else "source by suffix, mode or shebang"
        )
        return [reject("IN005", path, f"a {what} source file in the suite ({why})")]
    return []


def _input_detail(change: Change, root: str) -> str:
    old, new = change.old, change.new
    if new is None:
        return f"a protected input under {root!r} was deleted"
    if old is None:
        return f"a new file in the protected input {root!r}"
    if old.kind != new.kind:
        return f"a protected input became a {new.kind}"
    if change.content:
        return f"a protected input under {root!r} was modified"
    return f"a protected input's executable bit changed under {root!r}"


def _protected_files(view: _View, suite: str, inputs: list[str]) -> list[str]:
    """Every protected file of the baseline: the suite's (not runtime junk) and the protected inputs'."""
    files = [rel for rel, entry in view.baseline_suite().items() if entry.kind == "file" and not is_junk(rel)]
    for root in inputs:
        files.extend(rel for rel, is_dir in view.baseline_under(root).items() if not is_dir)
    return files


def _attr_texts(view: _View, paths: set[str], side: str) -> dict[str, str]:
    read = view.read_new if side == "new" else view.read_old
    texts = {}
    for path in sorted(paths):
        data = read(path)
        if data:
            texts[path] = data.decode("utf-8", "replace")
    return texts


def _attribute_findings(view: _View, changed: list[str], suite: str, inputs: list[str]) -> list[Finding]:
    """IN008 for `.gitattributes` that would change a protected file's checked-out bytes (computed, see
    `gitattr`). Only conversions the baseline's own attributes did not already make count."""
    if not changed:
        return []
    protected = _protected_files(view, suite, inputs)
    attr_paths = set(changed)
    for root in [suite, *inputs]:
        attr_paths.update(f"{d}/.gitattributes" if d else ".gitattributes" for d in ["", *ancestors(root)])
    attr_paths.update(rel for rel in protected if rel.rsplit("/", 1)[-1] == ".gitattributes")
    new_texts, old_texts = _attr_texts(view, attr_paths, "new"), _attr_texts(view, attr_paths, "old")
    hits: dict[tuple[str, int, str], list[str]] = {}
    for path in protected:
        attrs = path_attributes(path, new_texts)
        if not CONVERSION_ATTRS.intersection(attrs):
            continue
        content = view.read_new(path)
        now = conversions(attrs, content if content is not None else view.read_old(path) or b"")
        if not now:
            continue
        before = {
            what for what, _ in conversions(path_attributes(path, old_texts), view.read_old(path) or b"")
        }
        for what, setter in now:
            if what not in before:
                hits.setdefault((setter.file, setter.line, what), [setter.describe()]).append(path)
    findings = []
    for (attr_file, _line, what), (described, first, *more) in sorted(hits.items()):
        others = f" (and {len(more)} more)" if more else ""
        findings.append(reject("IN008", attr_file, f"{described} {what} the protected {first!r}{others}"))
    return findings


def _collisions(
    added: list[str], suite: str, inputs: list[str], base_suite: Callable[[], dict[str, Entry]]
) -> list[Finding]:
    """IN008: a new path equal to a protected one after case folding or Unicode normalization.

    Only new paths that fold into the suite are compared file by file (and only then is the baseline suite
    listed), so an unchanged suite costs nothing.
    """
    if not added:
        return []
    keys: dict[str, str] = {}
    for root in [suite, *inputs]:
        for name in [*ancestors(root), root]:
            keys.setdefault(fold(name), name)
    folded_suite = fold(suite)
    if any(within(fold(path), folded_suite) for path in added):
        keys.update(_suite_keys(suite, base_suite()))
    findings = []
    for path in added:
        for prefix in [*ancestors(path), path]:
            protected = keys.get(fold(prefix))
            if protected is not None and protected != prefix:
                findings.append(
                    reject(
                        "IN008",
                        path,
                        f"{prefix!r} differs from the protected {protected!r} only by case or normalization",
                    )
                )
                break
    return findings


_KEYS_CACHE: dict[int, tuple[dict[str, Entry], dict[str, str]]] = {}


def _suite_keys(suite: str, base_suite: dict[str, Entry]) -> dict[str, str]:
    cached = _KEYS_CACHE.get(id(base_suite))
    if cached is not None and cached[0] is base_suite:
        return cached[1]
    keys: dict[str, str] = {}
    for rel in base_suite:
        for name in [*ancestors(rel), rel]:
            if within(name, suite):
                keys.setdefault(fold(name), name)
    if len(_KEYS_CACHE) > 16:
        _KEYS_CACHE.clear()
    _KEYS_CACHE[id(base_suite)] = (base_suite, keys)
    return keys


def _stale_finding(suite: str) -> Finding:
    return reject(
        "IN006",
        f"{suite}/result.json",
        f"a result.json is committed in the baseline suite: it would be protected with the suite and mistaken "
        f"for a fresh result; delete {suite}/result.json from the baseline commit and commit again",
    )


def _report(view: _View, config: GuardConfig, command: str | None) -> GuardReport:
    findings = _judge(view, config, command or config.command)
    verdict: Verdict = "rejected" if any(f.severity == "reject" for f in findings) else "accepted"
    return GuardReport(verdict, view.evaluator_id(), tuple(findings))


# --------------------------------------------------------------------------------------- directories


def _entry(info: FileInfo) -> Entry | None:
    return None if info.kind == "dir" else Entry(info.kind, info.executable)


@dataclass
class _TreeView:
    base: Path
    cand: Path
    config: GuardConfig
    changes: dict[str, Change] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.suite = _suite_rel(self.config)
        for side, root in (("baseline", self.base), ("candidate", self.cand)):
            if not root.is_dir():
                raise IntegrityError(f"the {side} tree {str(root)!r} is not a directory")
        suite_dir = self.base / self.suite
        if suite_dir.is_symlink() or not suite_dir.is_dir():
            raise IntegrityError(f"the baseline tree {self.base} has no suite directory {self.suite}/")
        old, new = scan(self.base, skip_root_git=True), scan(self.cand, skip_root_git=True)
        self.old_listing, self.new_listing = old, new
        self._base_suite: dict[str, Entry] | None = None
        inputs = protected_inputs(self.config)
        self._digests: dict[tuple[str, str], str] = {}
        hash_old = [rel for rel, info in old.items() if info.kind == "file" and within(rel, self.suite)]
        hash_new: list[str] = []
        for rel in sorted(old.keys() | new.keys()):
            o, n = old.get(rel), new.get(rel)
            eo, en = (_entry(o) if o else None), (_entry(n) if n else None)
            if eo is None and en is None:
                continue
            if eo is not None and en is not None:
                if eo.kind != en.kind:
                    self.changes[rel] = Change(rel, eo, en, True)
                elif eo.kind == "symlink":
                    if os.readlink(self.base / rel) != os.readlink(self.cand / rel):
                        self.changes[rel] = Change(rel, eo, en, True)
                elif eo.kind == "file":
                    assert o is not None and n is not None
                    if o.size != n.size and _content_relevant(rel, self.suite, inputs):
                        self.changes[rel] = Change(rel, eo, en, True)
                    elif _content_relevant(rel, self.suite, inputs):
                        hash_new.append(rel)
                        if rel not in hash_old:
                            hash_old.append(rel)
                    elif eo.executable != en.executable:
                        self.changes[rel] = Change(rel, eo, en, False)
                continue
            self.changes[rel] = Change(rel, eo, en, True)
        self._hash(self.base, hash_old, "old")
        self._hash(self.cand, hash_new, "new")
        for rel in hash_new:
            eo, en = _entry(old[rel]), _entry(new[rel])
            content = self._digests[("old", rel)] != self._digests[("new", rel)]
            if content or (eo and en and eo.executable != en.executable):
                self.changes[rel] = Change(rel, eo, en, content)

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


def guard_trees(
    baseline_dir: Path, candidate_dir: Path, config: GuardConfig, *, command: str | None = None
) -> GuardReport:
    """Guard a candidate working tree against a baseline working tree (both workspace roots)."""
    return _report(_TreeView(Path(baseline_dir), Path(candidate_dir), config), config, command)


# ----------------------------------------------------------------------------------------------- git

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
class _GitView:
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
        self.suite = _suite_rel(self.config)
        self.store = gitcmd.object_store(self.repo)
        self._key = (str(self.repo), self.suite, self.suite_tree)
        self._oids: dict[tuple[str, str], str] = {}
        self._blobs: dict[str, bytes] = {}
        self._kinds: dict[str, str | None] = {}
        if self.base_tree == self.cand_tree:
            return
        raws = gitcmd.diff_trees(self.store, self.base_tree, self.cand_tree)
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
        entries = gitcmd.parse_tree(data, len(self.suite_tree) // 2) if info.type == "tree" else None
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


def guard_refs(repo: Path, baseline_ref: str, candidate_ref: str, config: GuardConfig) -> GuardReport:
    """Guard two commits of `repo` from git objects alone (never the working tree).

    Commit ids cost no git process once the repository's store is running; ref names cost one (refs are
    never read through a long-lived process, see `ObjectStore`).
    """
    repo = Path(repo)
    suite = _suite_rel(config)
    base, cand = gitcmd.resolve_commits(repo, [baseline_ref, candidate_ref])
    store = gitcmd.object_store(repo)
    base_tree, cand_tree = store.require([f"{base}^{{tree}}", f"{cand}^{{tree}}"])
    if base_tree.oid is None or cand_tree.oid is None:
        raise GitError(f"git cat-file failed in {repo}: the tree of {base[:12]} or {cand[:12]} is missing")
    (tree,) = store.info([f"{base}:{suite}"])
    if tree.type != "tree" or tree.oid is None:
        raise IntegrityError(f"the baseline commit {base[:12]} has no suite directory {suite}/")
    view = _GitView(repo, base, cand, config, base_tree.oid, cand_tree.oid, tree.oid)
    return _report(view, config, None)


# ------------------------------------------------------------------------------------ around the run


def check_stale_result(workspace_or_tree: Path, config: GuardConfig) -> Finding | None:
    """IN006: `<suite>/result.json` in the baseline would be protected and mistaken for a fresh result."""
    suite = _suite_rel(config)
    if os.path.lexists(Path(workspace_or_tree) / suite / "result.json"):
        return _stale_finding(suite)
    return None


def refuse_stale_result(workspace_or_tree: Path, config: GuardConfig) -> None:
    """Raise the IN006 launch refusal (one line saying what to do) when the baseline has a result.json."""
    finding = check_stale_result(workspace_or_tree, config)
    if finding is not None:
        raise IntegrityError(f"{finding.code}: refusing to launch: {finding.detail}")


def rehash_findings(before: SuiteSnapshot, suite_dir: Path, config: GuardConfig) -> list[Finding]:
    """IN009 after a run: a protected file changed, or a new source file or symlink appeared in the suite."""
    suite = _suite_rel(config)
    suite_dir = Path(suite_dir)
    if suite_dir.is_symlink() or not suite_dir.is_dir():
        return [reject("IN009", suite, "the suite directory was removed or replaced during the run")]
    after = snapshot(suite_dir)
    findings: list[Finding] = []

    def during(rel: str, what: str) -> None:
        findings.append(reject("IN009", f"{suite}/{rel}", f"during the run, {what}"))

    for rel, digest in before.manifest.items():
        mode = after.modes.get(rel)
        if mode is None:
            during(rel, "a protected file was deleted")
        elif mode["type"] != "file":
            during(rel, f"a protected file became a {mode['type']}")
        else:
            if after.manifest.get(rel) != digest:
                during(rel, "a protected file's content changed")
            if mode["executable"] != before.modes.get(rel, {}).get("executable"):
                during(rel, "a protected file's executable bit changed")
    for rel, digest in after.junk.items():
        if before.junk.get(rel) != digest:
            during(rel, "bytecode appeared in the suite (it can replace a module at import)")
    for rel, mode in after.modes.items():
        if rel in before.modes or rel in before.manifest or rel in after.junk:
            continue
        if mode["type"] == "symlink":
            during(rel, "a symlink appeared in the suite")
        elif mode["type"] == "file":
            executable = bool(mode["executable"])
            head = b"" if executable else _head(suite_dir / rel)
            if is_source(rel, executable=executable, head=head):
                during(rel, "a new source file appeared in the suite")
    if before.inputs:
        depth = len(Path(suite).parts)
        workspace = suite_dir.parents[depth - 1]
        now = input_digests(workspace, config)
        for rel in sorted(before.inputs.keys() | now.keys()):
            if before.inputs.get(rel) != now.get(rel):
                findings.append(
                    reject("IN009", rel, "during the run, a protected input was modified, added or deleted")
                )
    return findings


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(2)
    except OSError:
        return b""
