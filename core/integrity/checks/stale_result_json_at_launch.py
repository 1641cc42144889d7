"""## What it does
Refuses to launch a campaign (or judge a candidate) when the baseline commit has `<suite>/result.json`,
before anything runs, and says which file to delete.

## Why is this bad?
A committed `result.json` is protected with the suite and overlaid into every run. An evaluator that
crashes before writing its own would leave the committed one in place, and it would be read as a fresh
result: every candidate would get the same stale score.

## Example
```console
$ python kapso_evaluation/evaluate.py
$ git add kapso_evaluation/result.json
$ git commit -m "baseline results"
```

Use instead:
```console
$ git rm --cached kapso_evaluation/result.json
$ echo "kapso_evaluation/result.json" >> .gitignore
$ git commit -am "result.json is a run artifact"
```

## What a reviewer should do
Nothing is wrong with a candidate here: the baseline needs fixing. Delete the file from the baseline
commit, commit, and start the campaign again. `proctor check` reports the same file as EV017 before you
commit.

## References
- README "Campaigns"
- Rule EV017 (stale-result-json)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.findings import Finding, reject

CODE = "IN006"
NAME = "stale-result-json-at-launch"
SEVERITY = FindingSeverity.REJECT
TITLE = "stale result.json in the baseline suite"

if TYPE_CHECKING:
    from core.integrity.context import GuardContext


def stale_finding(suite: str) -> Finding:
    """The IN006 finding, also what `proctor campaign` refuses to launch with."""
    return reject(
        CODE,
        f"{suite}/result.json",
        f"a result.json is committed in the baseline suite: it would be protected with the suite and mistaken "
        f"for a fresh result; delete {suite}/result.json from the baseline commit and commit again",
    )


def check(ctx: GuardContext) -> Iterator[Finding]:
    if ctx.view.baseline_has(f"{ctx.suite}/result.json"):
        yield stale_finding(ctx.suite)
