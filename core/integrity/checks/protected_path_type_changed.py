"""## What it does
Rejects a candidate that changes the type of a protected path (a file becomes a symlink, a directory or a
submodule; a directory on the way to the suite becomes a file or link), adds a special file (fifo, socket,
device) to the suite, or adds a symlink inside the suite or one that points into it.

## Why is this bad?
A symlink or a directory keeps the protected name while the bytes come from somewhere the candidate
controls: `metrics.py` becomes a link to the candidate's own copy, or a package directory that outranks the
module at import. A link from outside into the suite lets candidate code write protected files at run time.
Content hashes of the old path do not see any of this.

## Example
```console
$ rm kapso_evaluation/metrics.py
$ ln -s ../model/my_metrics.py kapso_evaluation/metrics.py
$ git add -A && git commit -m "share metrics"
```

Use instead:
```console
$ git mv model/helpers.py model/features.py
$ git commit -m "rename a helper outside the suite"
```
Keep every protected path the same kind of entry it is in the baseline; put links only where they touch
neither the suite nor its parent directories.

## What a reviewer should do
Look at where the link or the new entry points (`git show <candidate>:<path>`). Treat it as an attempt to
substitute the evaluator's code or data, and reject the candidate's work.

## References
- README "Integrity: fingerprints, guard, registry" (cases `symlink-replaces-file`, `symlink-into-suite`,
  `file-becomes-dir`)
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.classify import fold, within
from core.integrity.findings import Finding, reject

CODE = "IN003"
NAME = "protected-path-type-changed"
SEVERITY = FindingSeverity.REJECT
TITLE = "protected path changed type, or a symlink in or into the suite"

if TYPE_CHECKING:
    from core.integrity.context import Change, GuardContext


def check(ctx: GuardContext) -> Iterator[Finding]:
    for change in ctx.changes:
        if change.new is not None and change.new.kind == "symlink" and change.altered:
            yield from _symlink(ctx, change.path)
    for change in ctx.in_zone("suite"):
        yield from _in_suite(ctx, change)
    for change in ctx.in_zone("suite_ancestor"):
        assert change.new is not None
        yield reject(CODE, change.path, f"a {change.new.kind} replaces a directory on the way to the suite")


def _in_suite(ctx: GuardContext, change: Change) -> Iterator[Finding]:
    path, new = change.path, change.new
    if change.protected_file:
        kind = ctx.view.new_kind(path) if new is None else None
        if new is None and kind in ("dir", "submodule"):
            yield reject(CODE, path, f"a protected file was replaced by a {kind}")
        elif new is not None and new.kind != "file":
            yield reject(CODE, path, f"a protected file became a {new.kind}")
    elif new is not None and new.kind == "special":
        yield reject(CODE, path, "a special file (fifo, socket or device) in the suite")


def _symlink(ctx: GuardContext, path: str) -> Iterator[Finding]:
    target = (ctx.view.read_new(path) or b"").decode("utf-8", "surrogateescape")
    if within(path, ctx.suite) or within(ctx.suite, path):
        yield reject(CODE, path, f"a symlink in the suite (-> {target})")
    elif _link_reaches(path, target, ctx.suite):
        yield reject(CODE, path, f"a symlink pointing into the suite (-> {target})")


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
