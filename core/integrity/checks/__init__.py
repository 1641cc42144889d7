"""The integrity rules IN001–IN011, one module per code: its `CODE`, `NAME`, `SEVERITY`, `TITLE` (the short
phrase reports print beside a finding) and a doc with the headings every rule doc has.

The guard (`core.integrity.guard`, `hooks`, `gitattr`) still makes the decisions and builds the findings;
these modules are the findings' identity, what `proctor rule INxxx` prints and what docs/rules.md and each
finding's `url` point at. `core.rules.registry` puts them in the one sorted rule table. Importing this package
is cheap (no pydantic, no rule engine): `proctor guard` loads it for the titles and URLs.
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

__all__ = ["CHECK_MODULES", "TITLES"]

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

TITLES: dict[str, str] = {module.CODE: module.TITLE for module in CHECK_MODULES}
