"""## What it does
Flags invisible characters in a brief: zero-width spaces and joiners, bidi controls, soft hyphens and
other characters that render as nothing.

## Why is this bad?
The protocol is read from the brief's text. An invisible character can hide a word from a reader or
change what a parser sees (a zero-width space inside "seed", a right-to-left override before a ratio), so the protocol a reviewer approves is not
the one that is applied. Proctor reads the brief without them, and says where they are.

## Example
```markdown
Measured by AUC on kapso_datasets/churn.csv, an 80/20 split with seed 42.  <- U+200B inside "seed"
```

Use instead:
```markdown
Measured by AUC on kapso_datasets/churn.csv, an 80/20 split with seed 42.
```

## Fix safety
Safe: the fix deletes the invisible characters of the line, which is the text Proctor already reads.

## References
- README "`proctor check`: static rules"
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from core.brief import INVISIBLE
from core.diagnostics import Applicability, Diagnostic, Fix, Range, Severity, TextEdit
from core.rules.brief.context import BriefContext

CODE = "BR010"
NAME = "invisible-characters"
SEVERITY = Severity.WARNING
FIX_TITLE = "Remove the invisible characters"
FIX_SAFETY = Applicability.SAFE


def check(ctx: BriefContext) -> Iterator[Diagnostic]:
    for number, line in enumerate(ctx.lines):
        found = list(INVISIBLE.finditer(line))
        if not found:
            continue
        first = found[0].group(0)
        name = unicodedata.name(first, "invisible character")
        more = f" and {len(found) - 1} more" if len(found) > 1 else ""
        edits = tuple(TextEdit(ctx.relpath, Range.of(number, m.start(), number, m.end()), "") for m in found)
        yield ctx.diagnostic(
            CODE,
            NAME,
            SEVERITY,
            Range.of(number, found[0].start(), number, found[-1].end()),
            f"invisible character U+{ord(first):04X} ({name}){more}: it can change how the protocol is read",
            Fix(FIX_TITLE, edits),
        )
