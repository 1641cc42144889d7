"""## What it does
Reports a Python file of the suite that does not parse, at the position the parser gives.

## Why is this bad?
An evaluator that does not parse cannot measure anything: every candidate fails, and no other rule can
check the file until it parses again.

## Example
```python
def main(:
    print(f"auc: {auc:.4f}")
```

Use instead:
```python
def main():
    print(f"auc: {auc:.4f}")
```

## References
- README "`proctor check`: static rules"
- https://docs.python.org/3/library/ast.html#ast.parse
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from core.diagnostics import Diagnostic, Position, Range, Severity
from core.lines import split_lines
from core.rules.evaluator.analysis import ast_utils

CODE = "EV001"
NAME = "syntax-error"
SEVERITY = Severity.ERROR
FIX_TITLE = None


def parse(text: str) -> ast.Module | SyntaxError | ValueError:
    """The module, or the error that stops it from parsing (warnings such as bad escapes are ignored)."""
    return ast_utils.parse(text)


def check(relpath: str, text: str, error: SyntaxError | ValueError) -> Iterator[Diagnostic]:
    lines = split_lines(text)
    if isinstance(error, SyntaxError) and error.lineno:
        # CPython gives 1-based *character* offsets for str sources.
        line = min(max(error.lineno - 1, 0), max(len(lines) - 1, 0))
        width = len(lines[line]) if lines else 0
        start = min(max((error.offset or 1) - 1, 0), width)
        end_line = (error.end_lineno or error.lineno) - 1
        end_offset = error.end_offset if error.end_offset and error.end_offset > 0 else None
        if end_line != line or end_offset is None or end_offset - 1 <= start:
            end = Position(line, min(start + 1, width) if start < width else width)
        else:
            end = Position(line, min(end_offset - 1, width))
        message = f"syntax error: {error.msg}"
        yield Diagnostic(CODE, NAME, SEVERITY, relpath, Range(Position(line, start), end), message)
        return
    detail = error.msg if isinstance(error, SyntaxError) else str(error)
    first = len(lines[0]) if lines else 0
    yield Diagnostic(CODE, NAME, SEVERITY, relpath, Range.of(0, 0, 0, first), f"syntax error: {detail}")
