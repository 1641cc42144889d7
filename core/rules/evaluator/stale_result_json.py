"""## What it does
Reports a `<suite>/result.json` that is committed to git (or, outside git, present on disk).

## Why is this bad?
The suite is fingerprinted file by file. A result.json left from an earlier run becomes part of the
protected suite, so the launch is refused (IN006), and a stale score can be mistaken for a fresh one.

## Example
```text
$ git ls-files kapso_evaluation
kapso_evaluation/evaluate.py
kapso_evaluation/result.json
```

Use instead:
```text
$ git rm --cached kapso_evaluation/result.json && echo result.json >> kapso_evaluation/.gitignore
```

## Fix safety
Safe: the file is output the next evaluator run writes again. The fix deletes it from the working tree;
commit the deletion (and ignore the file) so the suite at HEAD no longer contains it.

## References
- README "`proctor check`: static rules" and README "Integrity: fingerprints, guard, registry" (IN006); Kapso "A result.json an earlier run left in your evaluation directory is refused"
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from core.diagnostics import Applicability, Diagnostic, Fix, Severity
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.paths import result_json_path

CODE = "EV017"
NAME = "stale-result-json"
SEVERITY = Severity.ERROR
FIX_TITLE = "Delete the stale result.json"
FIX_SAFETY = Applicability.SAFE

_CACHE: dict[tuple[str, str, int, int, bool], bool] = {}


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    workspace = ctx.lint.workspace
    if workspace is None:
        return
    rel = result_json_path(ctx)
    if not is_stale(workspace, rel):
        return
    fix = Fix(FIX_TITLE, edits=(), delete_paths=(rel,))
    yield ctx.diagnostic(
        sys.modules[__name__],
        ctx.file_range(),
        f"`{rel}` is committed with the suite: it would be protected and the launch refused",
        fix,
    )


def is_stale(workspace: Path, rel: str) -> bool:
    """Tracked in git (index/HEAD) when the workspace is a repository; otherwise simply present."""
    # Plain `os` calls on strings: this runs on every keystroke, where pathlib's joins cost more than the stats.
    root = os.fspath(workspace)
    key = (root, rel, *_git_stamp(root), _is_file(os.path.join(root, rel)))
    exists = key[-1]
    if key in _CACHE:
        return _CACHE[key]
    tracked = _tracked(workspace, rel) if _in_repository(workspace) else None
    result = exists if tracked is None else tracked
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = result
    return result


def _in_repository(workspace: Path) -> bool:
    """A `.git` at or above the workspace: only then can git say whether the file is tracked (no git process
    is started for a plain directory)."""
    directory = workspace.resolve()
    return any((d / ".git").exists() for d in (directory, *directory.parents))


def _is_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _git_stamp(root: str) -> tuple[int, int]:
    """Changes whenever the index or HEAD does, so the cached answer stays right in a long editor session."""
    stamp = [0, 0]
    for index, name in enumerate(("index", "HEAD")):
        try:
            stamp[index] = os.stat(os.path.join(root, ".git", name)).st_mtime_ns
        except (OSError, ValueError):
            stamp[index] = -1
    return stamp[0], stamp[1]


def _tracked(workspace: Path, rel: str) -> bool | None:
    """True/False from `git ls-files --error-unmatch`; None when not a repository or git is unavailable."""
    from core.integrity.git import git_argv, git_env  # the one hardened way Proctor runs git

    command = git_argv(workspace, ("ls-files", "--error-unmatch", "--", rel))
    try:
        proc = subprocess.run(
            command, cwd=workspace, env=git_env(), capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode == 0:
        return True
    if "not a git repository" in proc.stderr.lower() or (
        proc.returncode == 128 and "did not match" not in proc.stderr
    ):
        return None
    return False
