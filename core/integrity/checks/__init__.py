"""The integrity rules IN001–IN011, one module per code: its `CODE`, `NAME`, `SEVERITY`, `TITLE` (the short
phrase reports print beside a finding), a doc with the headings every rule doc has, and, for the codes the
guard decides from a baseline/candidate pair, `check(ctx)` yielding its findings.

`CHECK_MODULES` is the IN part of the one rule table (`core.rules.registry` sorts it in with the other
families): what `proctor rule INxxx` prints, what docs/rules.md and each finding's `url` point at, and the
list the guard loops over (`GUARD_CHECKS`). IN009 is decided after a run (`guard.rehash_findings`), not
from a pair. Importing this package is cheap (no pydantic, no rule engine): `proctor guard` loads it.
"""

from __future__ import annotations

from types import ModuleType

from core.integrity.checks import (
    changed_during_run,
    executable_bit_changed,
    git_level_attack,
    interpreter_hook,
    new_source_in_suite,
    protected_file_changed,
    protected_file_deleted,
    protected_input_changed,
    protected_path_type_changed,
    runtime_scoring_patch,
    stale_result_json_at_launch,
)

__all__ = ["CHECK_MODULES", "GUARD_CHECKS", "rule_title"]

CHECK_MODULES: tuple[ModuleType, ...] = (
    protected_file_changed,
    protected_file_deleted,
    protected_path_type_changed,
    executable_bit_changed,
    new_source_in_suite,
    stale_result_json_at_launch,
    interpreter_hook,
    git_level_attack,
    changed_during_run,
    protected_input_changed,
    runtime_scoring_patch,
)

GUARD_CHECKS: tuple[ModuleType, ...] = tuple(module for module in CHECK_MODULES if hasattr(module, "check"))

_BY_CODE = {module.CODE: module for module in CHECK_MODULES}


def rule_title(code: str) -> str:
    """The short phrase a report prints beside an integrity finding's code ('' for any other code)."""
    module = _BY_CODE.get(code)
    return str(module.TITLE) if module is not None else ""
