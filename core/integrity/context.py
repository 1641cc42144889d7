"""What the integrity checks read: a baseline/candidate pair reduced to changed paths (`TreeView`), sorted
once into where each change lies (the suite, a directory on the way to it, a protected input, elsewhere).

`GuardContext` does no I/O of its own: file contents come through the view (a directory walk or git objects,
see `tree_view` and `git_view`), module facts through a `ModuleProvider` (`modules`). Each check of
`core/integrity/checks/` is a function of it, so the two views and any fake in a test are judged alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from core.errors import IntegrityError
from core.integrity.classify import has_git_component, is_junk, module_name, source_suffix, within
from core.integrity.findings import Finding
from core.integrity.hooks import PYTEST_FILES, PYTEST_SECTION_FILES, hook_findings
from core.integrity.modules import INSTALLED, ModuleProvider
from core.integrity.sys_path import EvaluatorModel, build_model

if TYPE_CHECKING:
    from core.integrity.settings import GuardConfig

Zone = Literal["suite", "suite_ancestor", "input", "outside"]


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

    @property
    def altered(self) -> bool:
        """The candidate has something here that the baseline did not have in this form."""
        new, old = self.new, self.old
        return new is not None and (old is None or self.content or old.kind != new.kind)

    @property
    def protected_file(self) -> bool:
        """The baseline has a protected file here (a regular file, not runtime junk)."""
        return self.old is not None and self.old.kind == "file" and not is_junk(self.path)


class TreeView(Protocol):
    """A baseline/candidate pair as the checks see it: what changed, and readers for either side."""

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


def suite_rel(config: GuardConfig) -> str:
    """The suite's workspace-relative posix path; a refusal when it does not name a directory inside."""
    rel = Path(config.evaluation_dir).as_posix().strip("/")
    if not rel or rel == "." or rel.startswith("../") or rel == "..":
        raise IntegrityError(
            f"evaluation_dir {config.evaluation_dir!r} must name a directory inside the workspace"
        )
    return rel


def hookish(path: str) -> bool:
    """A path that could be an interpreter hook or a module the evaluator imports (IN007/IN011)."""
    name = path.rsplit("/", 1)[-1]
    return (
        module_name(name) is not None
        or source_suffix(name) == ".pth"
        or name == "conftest.py"
        or path in PYTEST_FILES
        or path in PYTEST_SECTION_FILES
    )


def content_relevant(path: str, suite: str, inputs: list[str]) -> bool:
    """Paths whose bytes some check reads; content changes elsewhere cannot change a verdict."""
    name = path.rsplit("/", 1)[-1]
    return (
        within(path, suite)
        or any(within(path, root) for root in inputs)
        or name.endswith(".brief.md")
        or name in (".gitattributes", ".gitmodules")
        or hookish(path)
    )


@dataclass
class GuardContext:
    """One judgement's facts: the view, the suite and protected inputs, the evaluator's command."""

    view: TreeView
    suite: str
    inputs: list[str]
    command: str
    modules: ModuleProvider = INSTALLED

    @cached_property
    def changes(self) -> list[Change]:
        """Every change in path order, except inside a nested `.git` (never materialized)."""
        return [self.view.changes[p] for p in sorted(self.view.changes) if not has_git_component(p)]

    @cached_property
    def _zones(self) -> dict[str, Zone]:
        return {change.path: self._zone(change) for change in self.changes}

    def _zone(self, change: Change) -> Zone:
        path, new = change.path, change.new
        if within(path, self.suite):
            return "suite"
        if within(self.suite, path) and new is not None and new.kind != "symlink":
            return "suite_ancestor"
        if self.input_root(path) is not None or path.rsplit("/", 1)[-1].endswith(".brief.md"):
            return "input"
        return "outside"

    def input_root(self, path: str) -> str | None:
        """The protected input `path` lies in (or on the way to)."""
        return next((r for r in self.inputs if within(path, r) or within(r, path)), None)

    def in_zone(self, zone: Zone) -> Iterator[Change]:
        return (change for change in self.changes if self._zones[change.path] == zone)

    def new_text(self, path: str, errors: str = "replace") -> str:
        return (self.view.read_new(path) or b"").decode("utf-8", errors)

    @cached_property
    def provided(self) -> dict[str, str]:
        """Paths outside the suite and the protected inputs that the candidate adds or alters: their kind."""
        return {
            change.path: change.new.kind
            for change in self.in_zone("outside")
            if change.altered and change.new is not None and change.new.kind != "submodule"
        }

    @cached_property
    def provided_python(self) -> list[str]:
        return sorted(p for p, kind in self.provided.items() if kind == "file" and source_suffix(p) == ".py")

    @cached_property
    def model(self) -> EvaluatorModel:
        """The evaluator's modelled sys.path and imports (reads the baseline suite's sources once)."""
        return build_model(self.command, self.suite, self.view.suite_sources(), self.view.baseline_suite())

    @cached_property
    def hook_findings(self) -> list[Finding]:
        """IN007 and IN011 findings for the hooks the candidate provides (one analysis, two checks)."""
        hooks = {path: kind for path, kind in self.provided.items() if hookish(path)}
        if not hooks:
            return []
        view = self.view
        return hook_findings(self.model, hooks, view.read_old, view.read_new, view.new_kind, self.modules)

    def prefetch(self) -> None:
        """Read, in one exchange where the view can, the candidate side of every path a check will read."""
        self.view.prefetch(
            [
                path
                for path, change in self.view.changes.items()
                if change.new is not None
                and change.new.kind in ("file", "symlink")
                and content_relevant(path, self.suite, self.inputs)
                and not any(within(path, root) for root in self.inputs)
                and not (within(path, self.suite) and change.old is not None and change.new.kind == "file")
            ]
        )
