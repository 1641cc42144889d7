"""## What it does
Rejects a candidate when the suite or a protected input is different after the evaluation run than before
it: Proctor hashes them again after every run and reports a protected file changed, deleted or made
executable, a new source file, bytecode or symlink in the suite, a suite directory removed or replaced, or a
protected input modified, added or deleted.

## Why is this bad?
The static checks see only what the candidate committed. Candidate code that rewrites `metrics.py` or the
labels while the evaluator runs changes the ruler after the guard looked at it, so the score the evaluator
prints can come from the candidate's metric.

## Example
```python
# model/train.py, imported by the evaluator's run
from pathlib import Path

Path("kapso_evaluation/metrics.py").write_text("def auc(*_):\n    return 0.99\n")
```

Use instead:
```python
# model/train.py: write artifacts, never protected files
from pathlib import Path

Path("kapso_evaluation/output").mkdir(exist_ok=True)
Path("kapso_evaluation/output/train.log").write_text("epochs: 10\n")
```
New non-source files (result.json, logs, predictions) are allowed in the suite.

## What a reviewer should do
Look for code in the candidate that writes under the suite or the protected inputs (the detail names the
file that changed). An evaluator that writes source files into its own suite trips this too: fix the
evaluator (`proctor check` reports those writes as EV016) and register a new version.

## References
- README "Integrity: fingerprints, guard, registry" (case `runtime-rewrite`)
- Rule EV016
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.classify import is_source
from core.integrity.findings import Finding, reject

CODE = "IN009"
NAME = "changed-during-run"
SEVERITY = FindingSeverity.REJECT
TITLE = "suite changed during the evaluation run"

if TYPE_CHECKING:
    from core.integrity.manifest import SuiteSnapshot
    from core.integrity.settings import GuardConfig


def after_run(before: SuiteSnapshot, suite_dir: Path, config: GuardConfig) -> list[Finding]:
    """The findings of hashing the suite and the protected inputs again after a run (`before`: at launch)."""
    from core.integrity.context import suite_rel
    from core.integrity.manifest import snapshot

    suite = suite_rel(config)
    suite_dir = Path(suite_dir)
    if suite_dir.is_symlink() or not suite_dir.is_dir():
        return [reject(CODE, suite, "the suite directory was removed or replaced during the run")]
    after = snapshot(suite_dir)
    findings = [
        reject(CODE, f"{suite}/{rel}", f"during the run, {what}")
        for rel, what in _suite_changes(before, after, suite_dir)
    ]
    if before.inputs:
        findings.extend(_input_changes(before, suite_dir, suite, config))
    return findings


def _suite_changes(before: SuiteSnapshot, after: SuiteSnapshot, suite_dir: Path) -> list[tuple[str, str]]:
    """(suite-relative path, what happened) for the protected files, bytecode and new files of the suite."""
    from core.integrity.suite_diff import snapshot_state, suite_diff

    diff = suite_diff(snapshot_state(before), snapshot_state(after))
    touched = set(diff.changed) | set(diff.added)
    found = _protected_changes(before, after, set(diff.deleted), touched)
    found.extend(
        (rel, "bytecode appeared in the suite (it can replace a module at import)")
        for rel, digest in after.junk.items()
        if rel in touched and before.junk.get(rel) != digest
    )
    added = set(diff.added)
    for rel, mode in after.modes.items():
        if rel in added and rel not in before.manifest and rel not in after.junk:
            what = _new_entry(suite_dir, rel, mode)
            if what:
                found.append((rel, what))
    return found


def _protected_changes(
    before: SuiteSnapshot, after: SuiteSnapshot, deleted: set[str], touched: set[str]
) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for rel, digest in before.manifest.items():
        mode = after.modes.get(rel)
        if rel in deleted or mode is None:
            found.append((rel, "a protected file was deleted"))
        elif rel not in touched and rel in before.modes:
            continue
        elif mode["type"] != "file":
            found.append((rel, f"a protected file became a {mode['type']}"))
        else:
            if after.manifest.get(rel) != digest:
                found.append((rel, "a protected file's content changed"))
            if mode["executable"] != before.modes.get(rel, {}).get("executable"):
                found.append((rel, "a protected file's executable bit changed"))
    return found


def _new_entry(suite_dir: Path, rel: str, mode: dict[str, str | bool]) -> str | None:
    """What a path new in the suite is, when it is something the suite must not gain."""
    if mode["type"] == "symlink":
        return "a symlink appeared in the suite"
    if mode["type"] != "file":
        return None
    executable = bool(mode["executable"])
    head = b"" if executable else _head(suite_dir / rel)
    return (
        "a new source file appeared in the suite"
        if is_source(rel, executable=executable, head=head)
        else None
    )


def _input_changes(before: SuiteSnapshot, suite_dir: Path, suite: str, config: GuardConfig) -> list[Finding]:
    from core.integrity.manifest import input_digests

    workspace = suite_dir.parents[len(Path(suite).parts) - 1]
    now = input_digests(workspace, config)
    return [
        reject(CODE, rel, "during the run, a protected input was modified, added or deleted")
        for rel in sorted(before.inputs.keys() | now.keys())
        if before.inputs.get(rel) != now.get(rel)
    ]


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(2)
    except OSError:
        return b""
