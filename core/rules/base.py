"""What every rule family shares: rule metadata, document kinds and the lint context.

A rule module exposes `CODE`, `NAME`, `SEVERITY`, a docstring with the headings `## What it does`,
`## Why is this bad?`, `## Example`, `Use instead:` (and `## Fix safety` when it has a fix), `FIX_TITLE`
(None when the rule has no autofix), `FIX_SAFETY` (`Applicability.SAFE` or `.UNSAFE`, with a fix) and
`check(ctx) -> Iterator[Diagnostic]`, where `ctx` is its family's per-document context. The integrity
rules (`core/integrity/checks/`, kind `CHANGE`) carry only their identity and doc here: the guard decides.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.config_view import DEFAULTS, ConfigView
from core.diagnostics import Applicability, FindingSeverity, Severity

if TYPE_CHECKING:
    from types import ModuleType


class DocumentKind(enum.StrEnum):
    EVALUATOR = "evaluator"  # the evaluator entry file named by `command`
    SUITE_PYTHON = "suite-python"  # any other .py under the suite
    BRIEF = "brief"
    CONFIG = "config"
    CHANGE = "change"  # a candidate's change against its baseline: the integrity rules (IN), the guard's


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: Severity | FindingSeverity
    doc: str
    fix_title: str | None
    kinds: frozenset[DocumentKind]
    fix_safety: Applicability | None = None

    @classmethod
    def from_module(cls, module: ModuleType, kinds: frozenset[DocumentKind]) -> RuleInfo:
        return cls(
            code=module.CODE,
            name=module.NAME,
            severity=module.SEVERITY,
            doc=(module.__doc__ or "").strip(),
            fix_title=getattr(module, "FIX_TITLE", None),
            kinds=kinds,
            fix_safety=getattr(module, "FIX_SAFETY", None),
        )


def _no_file(_relpath: str) -> str | None:
    return None


@dataclass(frozen=True)
class LintContext:
    """Everything a rule may know beyond the document's own text.

    `read_file` reads a workspace-relative file and returns None when it does not exist; the language server
    overlays unsaved editor buffers here so cross-file rules (BR008) see what the user sees. `workspace` is
    None for a pure text lint (no file-system checks such as BR007 or EV017). `config` is a `core.config.Config`
    when the workspace has a config file, `core.config_view.DEFAULTS` otherwise.
    """

    config: ConfigView = DEFAULTS
    workspace: Path | None = None
    read_file: Callable[[str], str | None] = _no_file
    exists: Callable[[str], bool] | None = None

    def path_exists(self, relpath: str) -> bool:
        if self.exists is not None:
            return self.exists(relpath)
        if self.workspace is None:
            return True
        return (self.workspace / relpath).exists()
