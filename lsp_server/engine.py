"""What the server knows about each workspace, and the lint of one open document.

Everything here is synchronous and fast (no client requests, no awaits): the server calls it from debounce
timers and request handlers alike. Results are cached per document and re-used while the document's
version, the settings, the workspace config, the live-integrity state and every file the lint read are
unchanged, so a pull request for an unchanged document costs a few `stat` calls.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from core.config_view import (
    CONFIG_FILE,
    DEFAULTS,
    PYPROJECT_FILE,
    ConfigDefaults,
    ConfigView,
    evaluator_entry,
    pyproject_declares_config,
)
from core.diagnostics import Diagnostic, Range
from core.lint import classify, is_selected, lint_document
from core.rules.base import DocumentKind, LintContext
from lsp_server import convert, integrity
from lsp_server.client_features import ClientFeatures
from lsp_server.documents import Document, DocumentStore, split_lines
from lsp_server.settings import Settings

log = logging.getLogger(__name__)

Token = tuple[object, ...]
ROOT_MARKERS = (CONFIG_FILE, ".git", ".kapso")
_PATH_MEMO_LIMIT = 4096  # paths whose root and relative path are kept
_STALE_RESULT_CODE = "EV017"
_MISSING: Token = ("missing",)


class Overlay:
    """Workspace files as the user sees them: open buffers first, then disk (cached by stat).

    During one lint (`one_lint`) each path is stat'ed once: the config, the registry, the brief were each
    asked for two or three times per lint (the freshness checks, then the reads). A write meanwhile is seen
    by the next lint, as before, which stats again."""

    def __init__(self, docs: DocumentStore) -> None:
        self._docs = docs
        self._disk: dict[Path, tuple[Token, str | None]] = {}
        self._stats: dict[Path, Token] | None = None  # during `one_lint`: path -> its disk token

    @contextmanager
    def one_lint(self) -> Iterator[None]:
        """Within, `disk_token` stats each path at most once."""
        outer, self._stats = self._stats, {} if self._stats is None else self._stats
        try:
            yield
        finally:
            self._stats = outer

    def token(self, path: Path) -> Token:
        doc = self._docs.by_path(path)
        if doc is not None:
            return ("buffer", id(doc), doc.version)
        return self.disk_token(path)

    def disk_token(self, path: Path) -> Token:
        stats = self._stats
        if stats is not None and (known := stats.get(path)) is not None:
            return known
        try:
            st = os.stat(path)
        except OSError:
            token: Token = ("missing",)
        else:
            token = ("disk", st.st_mtime_ns, st.st_size, st.st_ino)
        if stats is not None:
            stats[path] = token
        return token

    def read(self, path: Path) -> str | None:
        doc = self._docs.by_path(path)
        if doc is not None:
            return doc.text
        token = self.token(path)
        cached = self._disk.get(path)
        if cached is not None and cached[0] == token:
            return cached[1]
        text: str | None = None
        if token[0] == "disk" and path.is_file():
            try:
                text = path.read_bytes().decode("utf-8-sig")
            except (OSError, UnicodeDecodeError):
                text = None
        self._disk[path] = (token, text)
        return text

    def content(self, path: Path) -> bytes | None:
        """Bytes as the suite would hash them: the disk bytes when the buffer matches disk, else the buffer."""
        doc = self._docs.by_path(path)
        try:
            on_disk: bytes | None = path.read_bytes()
        except OSError:
            on_disk = None
        if doc is None:
            return on_disk
        if on_disk is not None and on_disk.decode("utf-8-sig", "replace") == doc.text:
            return on_disk
        return doc.text.encode("utf-8")


@dataclass
class Root:
    """One workspace (a git root, or the folder holding proctor.toml) and its last valid config: a validated
    `core.config.Config`, or `DEFAULTS` while the workspace has no config file (no pydantic to import)."""

    path: Path
    # The files every lint checks for changes (built once: joining paths costs more than the stat).
    config_files: tuple[Path, Path] = field(init=False, repr=False, compare=False)
    registry_file: Path = field(init=False, repr=False, compare=False)
    head_file: Path = field(init=False, repr=False, compare=False)
    _files: dict[str, Path] = field(default_factory=dict, repr=False, compare=False)
    _kinds: dict[tuple[int, str], DocumentKind | None] = field(
        default_factory=dict, repr=False, compare=False
    )
    config: ConfigView = DEFAULTS
    config_token: Token | None = None
    generation: int = 0
    integrity_generation: int = 0
    baseline_token: Token | None = None
    baseline: integrity.Baseline | None = None
    tree_findings: list[Diagnostic] = field(default_factory=list)
    tree_stale: bool = True
    verify: VerifyOutcome | None = None

    def __post_init__(self) -> None:
        self.config_files = (self.path / CONFIG_FILE, self.path / PYPROJECT_FILE)
        self.registry_file = self.path / integrity.REGISTRY_FILE
        self.head_file = self.path / ".git" / "HEAD"

    def kind(self, relpath: str) -> DocumentKind | None:
        """`classify` under this root's config (kept per config generation: it is asked on every lint)."""
        key = (self.generation, relpath)
        if key not in self._kinds:
            if len(self._kinds) >= _PATH_MEMO_LIMIT:
                self._kinds.clear()
            self._kinds[key] = classify(relpath, self.config)
        return self._kinds[key]

    def file(self, relpath: str) -> Path:
        """`path / relpath`, the same object every time (a lint asks for the same few files on every edit)."""
        found = self._files.get(relpath)
        if found is None:
            if len(self._files) >= _PATH_MEMO_LIMIT:
                self._files.clear()
            found = self._files[relpath] = self.path / relpath
        return found


@dataclass(frozen=True)
class VerifyOutcome:
    """`proctor.verify` findings for the evaluator, valid while its text is the one that was run."""

    relpath: str
    text_sha: str
    diagnostics: tuple[Diagnostic, ...]


@dataclass
class LintResult:
    uri: str
    version: int | None
    key: Token
    deps: dict[Path, Token]
    diagnostics: list[Diagnostic]
    items: list[types.Diagnostic]
    result_id: str
    root: Path | None
    relpath: str | None


def same_config(a: ConfigView, b: ConfigView) -> bool:
    """Equal as configs: `DEFAULTS` stands for `Config()` (what a workspace without a config file had)."""
    if isinstance(a, ConfigDefaults) and isinstance(b, ConfigDefaults):
        return a == b
    # One of them is a validated `Config`: core.config is loaded already.
    from core.config import Config

    return (Config() if isinstance(a, ConfigDefaults) else a) == (
        Config() if isinstance(b, ConfigDefaults) else b
    )


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Engine:
    def __init__(self, docs: DocumentStore) -> None:
        self.docs = docs
        self.overlay = Overlay(docs)
        self.client = ClientFeatures()
        self.settings = Settings()
        self.settings_generation = 0
        self.folders: list[Path] = []
        self.roots: dict[Path, Root] = {}
        self._root_of_dir: dict[Path, Path] = {}
        self._root_of_path: dict[Path, Path] = {}  # a file -> its root (a directory's root never changes)
        self._relpaths: dict[tuple[Path, Path], str | None] = {}
        self._results: dict[str, LintResult] = {}
        self._converters: dict[tuple[object, ...], convert.DiagnosticConverter] = {}

    # -- workspaces -------------------------------------------------------------------------------------

    def set_settings(self, settings: Settings) -> None:
        if settings != self.settings:
            self.settings = settings
            self.settings_generation += 1

    def root_for(self, path: Path) -> Root:
        root_path = self._root_of_path.get(path)
        if root_path is None:
            directory = path.parent
            root_path = self._root_of_dir.get(directory)
            if root_path is None:
                root_path = self._find_root(directory)
                self._root_of_dir[directory] = root_path
            if len(self._root_of_path) >= _PATH_MEMO_LIMIT:
                self._root_of_path.clear()
            self._root_of_path[path] = root_path
        root = self.roots.get(root_path)
        if root is None:
            root = self.roots[root_path] = Root(root_path)
        return root

    def _find_root(self, directory: Path) -> Path:
        for candidate in (directory, *directory.parents):
            if any((candidate / marker).exists() for marker in ROOT_MARKERS):
                return candidate
        containing = [f for f in self.folders if f == directory or f in directory.parents]
        return max(containing, key=lambda f: len(f.parts)) if containing else directory

    def refresh_config(self, root: Root) -> bool:
        """Re-read proctor.toml / [tool.proctor] (buffer or disk) when either changed; True when it did."""
        config_file, pyproject_file = root.config_files
        token = (self.overlay.token(config_file), self.overlay.token(pyproject_file))
        if token == root.config_token:
            return False
        root.config_token = token
        config: ConfigView = DEFAULTS
        for path, pyproject in ((config_file, False), (pyproject_file, True)):
            text = self.overlay.read(path)
            if text is None or (pyproject and not pyproject_declares_config(text)):
                continue
            # pydantic and the config models (a fifth of the server's imports) load only for a config file.
            from core.config import validate_config_text

            parsed, problems = validate_config_text(text, path, pyproject=pyproject)
            if problems or parsed is None:
                # Keep the last valid config while the file is being edited; CF001 shows the problem.
                return False
            config = parsed
            break
        if not same_config(config, root.config):
            root.config = config
            root.generation += 1
            root.tree_stale = True
            return True
        return False

    def relpath(self, root: Root, path: Path) -> str | None:
        key = (root.path, path)
        if key in self._relpaths:
            return self._relpaths[key]
        try:
            found: str | None = path.relative_to(root.path).as_posix()
        except ValueError:
            found = None
        if len(self._relpaths) >= _PATH_MEMO_LIMIT:
            self._relpaths.clear()
        self._relpaths[key] = found
        return found

    def uri_of(self, root: Root) -> Callable[[str], str]:
        def uri(relpath: str) -> str:
            return from_fs_path(str(root.path / relpath)) or (root.path / relpath).as_uri()

        return uri

    def converter(self, root: Root) -> convert.DiagnosticConverter:
        """Diagnostics of `root`'s documents as this client sees them (one converter, and its memo, per
        workspace and client)."""
        client = self.client
        key = (root.path, client.encoding, client.related_information, client.code_description)
        found = self._converters.get(key)
        if found is None:
            found = self._converters[key] = convert.DiagnosticConverter(
                client.encoding,
                self.uri_of(root),
                self.lines_of(root),
                related_support=client.related_information,
                code_description_support=client.code_description,
            )
        return found

    def lines_of(self, root: Root) -> Callable[[str], Sequence[str]]:
        def lines(relpath: str) -> Sequence[str]:
            path = root.file(relpath)
            doc = self.docs.by_path(path)
            if doc is not None:
                return doc.lines
            return split_lines(self.overlay.read(path) or "")

        return lines

    # -- live integrity ---------------------------------------------------------------------------------

    def refresh_integrity(self, root: Root, *, force: bool = False) -> bool:
        """Re-read the registry head and the suite on disk when they may have changed; True when they did."""
        token = (self.overlay.token(root.registry_file), self.overlay.token(root.head_file), root.generation)
        if token == root.baseline_token and not force and not root.tree_stale:
            return False
        before = (root.baseline, root.tree_findings)
        if root.baseline is None and token[0] == _MISSING:
            # Not registered: nothing to flag, and the baseline search is never loaded (`lsp_server.baseline`).
            root.baseline_token, root.tree_findings = token, []
        else:
            self._refresh_baseline(root, token, force=force)
        root.tree_stale = False
        if (root.baseline, root.tree_findings) != before:
            root.integrity_generation += 1
            return True
        return False

    def _refresh_baseline(self, root: Root, token: Token, *, force: bool) -> None:
        """`root.baseline` for the registry head (found again only for a new head or suite), and the
        findings for the whole suite tree."""
        # The registry reader, the suite hasher and hardened git: loaded once a workspace has a registry.
        from lsp_server import baseline

        if token != root.baseline_token or force:
            root.baseline_token = token
            head = baseline.read_head(root.path)
            suite = root.config.evaluation_dir.strip("/")
            known = root.baseline
            if head is None:
                root.baseline = None
            elif known is None or known.head != head or known.suite != suite or known.manifest is None:
                # Only a new head (or suite) needs a new baseline: the suite on disk may be edited by now.
                root.baseline = baseline.find_baseline(root.path, suite, head)
        open_paths = [
            rel
            for doc in self.docs.all()
            if doc.path is not None and (rel := self.relpath(root, doc.path)) is not None
        ]
        root.tree_findings = (
            [] if root.baseline is None else baseline.tree_findings(root.path, root.baseline, open_paths)
        )

    def tree_target(self, root: Root, affected: str) -> str:
        """Where IN002/IN005 for `affected` are shown: the open suite document nearest to it, else the
        registry file."""
        suite = root.config.evaluation_dir.rstrip("/") + "/"
        best: tuple[int, str] | None = None
        for doc in self.docs.all():
            rel = self.relpath(root, doc.path) if doc.path is not None else None
            if rel is None or not rel.startswith(suite):
                continue
            shared = len(os.path.commonpath([rel, affected]).split("/")) if rel and affected else 0
            if best is None or (shared, rel) > best:
                best = (shared, rel)
        return best[1] if best else integrity.REGISTRY_FILE

    def integrity_findings(self, root: Root, relpath: str) -> list[Diagnostic]:
        baseline = root.baseline
        if baseline is None:
            return []
        found: list[Diagnostic] = []
        suite = root.config.evaluation_dir.rstrip("/") + "/"
        if relpath.startswith(suite):
            path = root.path / relpath
            content = self.overlay.content(path)
            if integrity.in_manifest(baseline, relpath) and not path.exists():
                found.append(integrity.deleted_finding(baseline, relpath))
            elif content is not None:
                found.extend(integrity.file_findings(baseline, relpath, content, os.access(path, os.X_OK)))
        for finding in root.tree_findings:
            if self.tree_target(root, finding.path) == relpath:
                found.append(
                    Diagnostic(
                        finding.code, finding.name, finding.severity, relpath, finding.range, finding.message
                    )
                )
        return found

    # -- lint -------------------------------------------------------------------------------------------

    def result(self, doc: Document) -> LintResult:
        """The (cached) diagnostics of an open document."""
        with self.overlay.one_lint():
            cached = self._results.get(doc.uri)
            root = self.root_for(doc.path) if doc.path is not None else None
            if root is not None:
                self.refresh_config(root)
                self.refresh_integrity(root)
            key = self._key(doc, root)
            if cached is not None and cached.key == key and self._deps_fresh(cached.deps):
                return cached
            result = self._lint(doc, root, key)
            self._results[doc.uri] = result
            return result

    def cached(self, uri: str) -> LintResult | None:
        return self._results.get(uri)

    def forget(self, uri: str) -> None:
        self._results.pop(uri, None)

    def dependants(self, path: Path) -> list[str]:
        """Open documents whose last lint read `path` (BR008 reads the evaluator from the brief)."""
        return [
            uri for uri, res in self._results.items() if path in res.deps and self.docs.get(uri) is not None
        ]

    def _key(self, doc: Document, root: Root | None) -> Token:
        if root is None:
            return (id(doc), doc.version, self.settings_generation, self.client.encoding)
        disk: Token = ()
        if root.baseline is not None and doc.path is not None:
            # Live integrity compares the file on disk too: a save or an outside write changes the finding.
            disk = self.overlay.disk_token(doc.path)
        return (
            id(doc),
            doc.version,
            self.settings_generation,
            self.client.encoding,
            root.path,
            root.generation,
            root.integrity_generation,
            id(root.verify),
            disk,
        )

    def _deps_fresh(self, deps: dict[Path, Token]) -> bool:
        return all(self.overlay.token(path) == token for path, token in deps.items())

    def _lint(self, doc: Document, root: Root | None, key: Token) -> LintResult:
        relpath = self.relpath(root, doc.path) if root is not None and doc.path is not None else None
        if root is None or relpath is None:
            return LintResult(doc.uri, doc.version, key, {}, [], [], "empty", None, None)
        deps: dict[Path, Token] = {}

        def read_file(rel: str) -> str | None:
            path = root.file(rel)
            deps[path] = self.overlay.token(path)
            return self.overlay.read(path)

        def exists(rel: str) -> bool:
            path = root.file(rel)
            deps[path] = self.overlay.token(path)
            return self.docs.by_path(path) is not None or path.exists()

        config = root.config
        ctx = LintContext(config=config, workspace=root.path, read_file=read_file, exists=exists)
        select, ignore = self.settings.select, self.settings.ignore
        found: list[Diagnostic] = []
        kind = root.kind(relpath)
        try:
            if kind is not None:
                found.extend(lint_document(relpath, doc.text, kind, ctx, select=select, ignore=ignore))
            elif relpath == f"{config.evaluation_dir.rstrip('/')}/result.json":
                found.extend(self._stale_result(root, relpath, ctx))
        except Exception:
            # A rule bug must not take the other diagnostics (or the server) down with it.
            log.exception("linting %s failed", relpath)
        found.extend(d for d in self.integrity_findings(root, relpath) if is_selected(d.code, select, ignore))
        verify = root.verify
        if verify is not None and verify.relpath == relpath and verify.text_sha == sha(doc.text):
            found.extend(verify.diagnostics)
        items = self.converter(root).all_to_lsp(found, doc.lines)
        # Result ids are only compared within this process: a hash of the (frozen) diagnostics will do, and
        # costs a fraction of hashing their repr on every keystroke.
        result_id = f"{hash((tuple(found), self.client.encoding)) & 0xFFFF_FFFF_FFFF_FFFF:016x}"
        return LintResult(doc.uri, doc.version, key, deps, found, items, result_id, root.path, relpath)

    def _stale_result(self, root: Root, relpath: str, ctx: LintContext) -> list[Diagnostic]:
        """A stale `<suite>/result.json` shows the evaluator's EV017 on itself (its fix deletes the file)."""
        entry = evaluator_entry(root.config)
        text = ctx.read_file(entry) if entry else None
        if entry is None or text is None:
            return []
        found = lint_document(
            entry, text, DocumentKind.EVALUATOR, ctx, select=self.settings.select, ignore=self.settings.ignore
        )
        return [
            Diagnostic(d.code, d.name, d.severity, relpath, Range.line_start(0), d.message, d.fix, d.related)
            for d in found
            if d.code == _STALE_RESULT_CODE
        ]
