"""`proctor check`: find the files to lint in a workspace (or take the ones given), read them, lint them.

The engine (`core.lint`) is pure; this module is the file-system edge: discovery, reading (a binary or
unreadable file is a `WorkspaceError` naming it), the `LintContext` that lets cross-file rules read the
workspace, and `--fix` through `core.fixes`. A malformed config does not stop the check: it becomes CF001
diagnostics, the rest is linted with the config's valid keys (defaults for the bad ones), and
`CheckResult.config_error` says so.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from core.config_view import (
    CONFIG_FILE,
    DEFAULTS,
    PYPROJECT_FILE,
    ConfigView,
    evaluator_entry,
    has_config_file,
)
from core.diagnostics import Diagnostic, Related, Severity, TextEdit
from core.errors import ConfigError, WorkspaceError
from core.fix_verify import refusal
from core.fixes import FixReport, apply_fixes
from core.lint import classify, lint_document
from core.rules.base import DocumentKind, LintContext
from core.treewalk import walk

__all__ = [
    "CheckResult",
    "Document",
    "check_paths",
    "check_targets",
    "discover",
    "find_workspace",
    "read_text",
    "with_path_prefix",
    "workspace_root",
]

# Directories never searched for briefs: VCS data, environments, caches, Proctor's and Kapso's own state.
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", "env", "site-packages", "build", "dist"})
_TOOL_PROCTOR = re.compile(r"^\s*\[\s*tool\s*\.\s*proctor\s*[\].]", re.MULTILINE)


@dataclass(frozen=True)
class Document:
    relpath: str
    kind: DocumentKind
    text: str


@dataclass(frozen=True)
class CheckResult:
    workspace: Path
    config: ConfigView
    config_path: Path | None
    config_error: ConfigError | None
    documents: tuple[Document, ...]
    diagnostics: tuple[Diagnostic, ...]
    fix_report: FixReport | None = None

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)

    @property
    def fixable(self) -> int:
        return sum(1 for d in self.diagnostics if d.fix is not None)


def read_text(path: Path, shown: str) -> str:
    """A file's text, or a WorkspaceError naming `shown` when it is unreadable, binary or not UTF-8."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise WorkspaceError(f"{shown}: is a directory, expected a file", path=path) from None
    except OSError as exc:
        raise WorkspaceError(f"{shown}: cannot read: {exc.strerror or exc}", path=path) from None
    if b"\x00" in data:
        raise WorkspaceError(f"{shown}: binary file (NUL bytes), expected UTF-8 text", path=path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WorkspaceError(
            f"{shown}: not UTF-8 text (invalid byte at offset {exc.start})", path=path
        ) from None
    return text.removeprefix("\ufeff")


def _has_tool_proctor(path: Path) -> bool:
    try:
        return _TOOL_PROCTOR.search(path.read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:
        return False


def _is_marker_dir(directory: Path) -> bool:
    return (
        (directory / CONFIG_FILE).is_file()
        or (directory / ".git").exists()
        or ((directory / PYPROJECT_FILE).is_file() and _has_tool_proctor(directory / PYPROJECT_FILE))
    )


def find_workspace(file: Path, cwd: Path) -> Path:
    """The workspace of an explicitly named file: the nearest directory with proctor.toml, [tool.proctor] or
    .git, not looking above `cwd` when the file is under it; else `cwd`, or the file's directory."""
    file = file.resolve()
    cwd = cwd.resolve()
    under_cwd = cwd in file.parents
    for directory in file.parents:
        if _is_marker_dir(directory):
            return directory
        if under_cwd and directory == cwd:
            return cwd
    return file.parent


def workspace_root(start: Path) -> Path:
    """Where `proctor check` with no path looks: the nearest directory at or above `start` with proctor.toml,
    [tool.proctor] in pyproject.toml, or .git (as git and ruff find their root); `start` when there is none."""
    start = start.resolve()
    for directory in (start, *start.parents):
        if _is_marker_dir(directory):
            return directory
    return start


def _walk(top: Path, skip_dirs: frozenset[str], prune: Path | None = None) -> list[Path]:
    """Files under `top`, sorted, skipping hidden directories, `skip_dirs` and `prune` (the data directory,
    which can hold many files and no briefs)."""
    found: list[Path] = []
    if not top.is_dir():
        return found
    skip = os.path.normpath(prune) if prune is not None else None
    for dirpath, dirnames, filenames in walk(top):  # iterative: a deep tree cannot recurse Proctor to death
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in skip_dirs
            and os.path.normpath(os.path.join(dirpath, d)) != skip
        )
        found.extend(Path(dirpath) / name for name in sorted(filenames))
    return found


def discover(workspace: Path, config: ConfigView) -> list[tuple[str, DocumentKind]]:
    """What `proctor check` lints in a workspace: the evaluator entry, every .py under the suite, the brief
    and any *.brief.md, proctor.toml, and pyproject.toml when it has [tool.proctor]."""
    found: dict[str, DocumentKind] = {}

    def add(relpath: str) -> None:
        kind = classify(relpath, config)
        if kind is not None and relpath not in found:
            found[relpath] = kind

    entry = evaluator_entry(config)
    if entry is not None and (workspace / entry).is_file():
        add(entry)
    suite = workspace / config.evaluation_dir
    for path in _walk(suite, frozenset({"__pycache__"})):
        if path.suffix == ".py":
            add(path.relative_to(workspace).as_posix())
    brief = PurePosixPath(config.brief).as_posix()
    if (workspace / brief).is_file():
        add(brief)
    data_dir = workspace / config.data_dir
    for path in _walk(workspace, SKIP_DIRS, prune=data_dir):
        if path.name.endswith(".brief.md"):
            add(path.relative_to(workspace).as_posix())
    if (workspace / CONFIG_FILE).is_file():
        add(CONFIG_FILE)
    if (workspace / PYPROJECT_FILE).is_file() and _has_tool_proctor(workspace / PYPROJECT_FILE):
        add(PYPROJECT_FILE)
    return sorted(found.items())


def _explicit_kind(relpath: str, config: ConfigView) -> DocumentKind:
    kind = classify(relpath, config)
    if kind is not None:
        return kind
    path = PurePosixPath(relpath)
    if path.suffix == ".py":
        return DocumentKind.EVALUATOR  # a .py named on the command line and not in the suite: an evaluator
    if path.suffix.lower() in (".md", ".markdown"):
        return DocumentKind.BRIEF
    if path.name in (CONFIG_FILE, PYPROJECT_FILE):
        return DocumentKind.CONFIG
    raise WorkspaceError(
        f"{relpath}: not something proctor checks (expected an evaluator .py, a brief .md, proctor.toml "
        "or pyproject.toml)",
        path=relpath,
    )


def _load(workspace: Path) -> tuple[ConfigView, Path | None, ConfigError | None]:
    """The workspace's config; the defaults without importing pydantic when it has no config file."""
    if not has_config_file(workspace):
        return DEFAULTS, None, None
    from core.config import PYPROJECT_FILE, config_without_problems, load_config

    try:
        loaded = load_config(workspace)
    except ConfigError as exc:
        try:
            text = Path(exc.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return DEFAULTS, exc.path, exc
        pyproject = Path(exc.path).name == PYPROJECT_FILE
        return config_without_problems(text, pyproject=pyproject), exc.path, exc
    return loaded.config, loaded.path, None


def check_paths(
    paths: Sequence[Path | str] = (),
    workspace: Path | str | None = None,
    config: ConfigView | None = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    *,
    fix: bool = False,
    unsafe_fixes: bool = False,
) -> CheckResult:
    """Lint `paths` (files, relative to the current directory) in `workspace`, or the whole workspace when
    `paths` is empty. `config=None` reads the workspace's config. Raises WorkspaceError for a missing workspace
    or file and for unreadable or binary files."""
    explicit = [Path(p) for p in paths]
    root = _workspace_of(explicit, workspace)
    config_error: ConfigError | None = None
    config_path: Path | None = None
    if config is None:
        config, config_path, config_error = _load(root)
    targets = _explicit_targets(explicit, root, config) if explicit else discover(root, config)
    run = _WorkspaceLint(root, config, targets, select, ignore)
    report: FixReport | None = None
    if fix:
        report = apply_fixes(root, run.lint_all, unsafe=unsafe_fixes, verify=run.verify)
        diagnostics = list(report.remaining)
    else:
        diagnostics = run.lint_all()
    return CheckResult(
        root, config, config_path, config_error, tuple(run.documents), tuple(diagnostics), report
    )


def _workspace_of(explicit: Sequence[Path], workspace: Path | str | None) -> Path:
    """The workspace to check: the one given, else the one the first named file is in; it must exist."""
    if workspace is None:
        if not explicit:
            raise WorkspaceError("nothing to check: give a workspace or files")
        workspace = find_workspace(explicit[0], Path.cwd())
    root = Path(workspace)
    if not root.exists():
        raise WorkspaceError(f"{root}: workspace does not exist", path=root)
    if not root.is_dir():
        raise WorkspaceError(f"{root}: workspace is not a directory", path=root)
    return root


def _explicit_targets(
    explicit: Sequence[Path], root: Path, config: ConfigView
) -> list[tuple[str, DocumentKind]]:
    """The named files as workspace-relative paths with the rules that apply to them."""
    targets: list[tuple[str, DocumentKind]] = []
    resolved_root = root.resolve()
    for path in explicit:
        if not path.exists():
            raise WorkspaceError(f"{path}: no such file", path=path)
        if path.is_dir():
            raise WorkspaceError(f"{path}: is a directory; name files, or the workspace alone", path=path)
        resolved = path.resolve()
        if resolved_root not in resolved.parents:
            raise WorkspaceError(f"{path}: not inside the workspace {root}", path=path)
        relpath = resolved.relative_to(resolved_root).as_posix()
        targets.append((relpath, _explicit_kind(relpath, config)))
    return targets


class _WorkspaceLint:
    """One check of a workspace's targets: reads them, lints them, and lets `--fix` verify each change.

    Texts read in a pass are cached, so cross-file rules (BR008) read what this pass read."""

    def __init__(
        self,
        root: Path,
        config: ConfigView,
        targets: Sequence[tuple[str, DocumentKind]],
        select: Sequence[str],
        ignore: Sequence[str],
    ) -> None:
        self.root, self.config, self.targets = root, config, targets
        self.select, self.ignore = select, ignore
        self.kinds = dict(targets)
        self.documents: list[Document] = []
        self.cache: dict[str, str] = {}

    def context(self) -> LintContext:
        return LintContext(config=self.config, workspace=self.root, read_file=self.read_file)

    def lint_all(self) -> list[Diagnostic]:
        self.documents.clear()
        self.cache.clear()
        for relpath, kind in self.targets:
            text = read_text(self.root / relpath, relpath)
            self.cache[relpath] = text
            self.documents.append(Document(relpath, kind, text))
        ctx = self.context()
        found: list[Diagnostic] = []
        for document in self.documents:
            found.extend(
                lint_document(
                    document.relpath,
                    document.text,
                    document.kind,
                    ctx,
                    select=self.select,
                    ignore=self.ignore,
                    incremental=False,
                )
            )
        return sorted(found, key=lambda d: (d.path, d.range.start, d.code))

    def read_file(self, relpath: str) -> str | None:
        if relpath in self.cache:
            return self.cache[relpath]
        target = self.root / relpath
        if not target.is_file():
            return None
        try:
            text = read_text(target, relpath)
        except WorkspaceError:
            return None
        self.cache[relpath] = text
        return text

    def verify(self, relpath: str, before: str, after: str) -> str | None:
        kind = self.kinds.get(relpath)
        if kind is None:
            return None
        return refusal(relpath, kind, before, after, self.context())


def check_targets(
    targets: Sequence[Path],
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    *,
    fix: bool = False,
    unsafe_fixes: bool = False,
    cwd: Path | None = None,
) -> list[CheckResult]:
    """The CLI's view: each directory is a workspace of its own; files are grouped by their workspace."""
    here = (cwd or Path.cwd()).resolve()
    if not targets:
        targets = [workspace_root(here)]
    results: list[CheckResult] = []
    files: dict[Path, list[Path]] = {}
    for target in targets:
        path = target if target.is_absolute() else here / target
        if path.is_dir():
            results.append(check_paths((), path, None, select, ignore, fix=fix, unsafe_fixes=unsafe_fixes))
        elif path.exists():
            files.setdefault(find_workspace(path, here), []).append(path)
        else:
            raise WorkspaceError(f"{target}: no such file or directory", path=target)
    for workspace, members in files.items():
        results.append(
            check_paths(members, workspace, None, select, ignore, fix=fix, unsafe_fixes=unsafe_fixes)
        )
    return results


def with_path_prefix(diagnostic: Diagnostic, prefix: str) -> Diagnostic:
    """The diagnostic with every path (its own, its fix's, its related places') under `prefix`."""
    if not prefix:
        return diagnostic

    def moved(path: str) -> str:
        return (PurePosixPath(prefix) / path).as_posix()

    fix = diagnostic.fix
    if fix is not None:
        fix = replace(
            fix,
            edits=tuple(TextEdit(moved(e.path), e.range, e.new_text) for e in fix.edits),
            delete_paths=tuple(moved(p) for p in fix.delete_paths),
        )
    related = tuple(Related(moved(r.path), r.range, r.message) for r in diagnostic.related)
    return replace(diagnostic, path=moved(diagnostic.path), fix=fix, related=related)
