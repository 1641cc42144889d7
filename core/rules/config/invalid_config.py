"""## What it does
Checks that `proctor.toml` (or `[tool.proctor]` in `pyproject.toml`) is valid TOML with only known keys of
the right types.

## Why is this bad?
A misspelt key is silently ignored by most tools; here it would mean a campaign runs with a different
timeout, sandbox or metric than the one you wrote down. Proctor refuses to guess.

## Example
```toml
timeout = "600"       # unknown key; and the value is a string
```

Use instead:
```toml
timeout_s = 600
```

## References
- README "Configuration"
"""

from __future__ import annotations

from collections.abc import Iterator

from core.diagnostics import Diagnostic, Range, Severity

CODE = "CF001"
NAME = "invalid-config"
SEVERITY = Severity.ERROR
FIX_TITLE = None


def check(relpath: str, text: str) -> Iterator[Diagnostic]:
    from core.config import validate_config_text  # pydantic: paid only when there is a config to check

    _config, problems = validate_config_text(text, relpath, pyproject=relpath.endswith("pyproject.toml"))
    lines = text.splitlines()
    for exc in problems:
        line = max(exc.line - 1, 0)
        width = len(lines[line]) if line < len(lines) else 0
        message = f"`{exc.key}`: {exc.problem}" if exc.key else exc.problem
        yield Diagnostic(CODE, NAME, SEVERITY, relpath, Range.of(line, 0, line, width), message)
