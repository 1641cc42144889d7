"""Generate docs/rules.md from the rule docstrings: `python -m core.report.rules_doc > docs/rules.md`.

Each rule gets a `## CODE` heading, so its anchor is the lower-case code that `core.diagnostics.rule_url`
links to from every diagnostic, SARIF rule and editor hover. A test fails when the committed file is stale.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from core.rules.base import RuleInfo

HEADER = """# Proctor rules

Generated from the rule docstrings by `python -m core.report.rules_doc > docs/rules.md`; do not edit by hand.
`proctor rule CODE` prints the same text. Silence a finding on one line with `# proctor: noqa: CODE`
(`<!-- proctor: noqa: CODE -->` in Markdown).

| code | name | severity | autofix (safety) |
| --- | --- | --- | --- |
"""


def _demote(doc: str) -> str:
    """Rule docs use `##` headings; under the rule's own `##` heading they become `###` (not inside code)."""
    out = []
    fenced = False
    for line in doc.splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and re.match(r"#{2,5} ", line):
            line = "#" + line
        out.append(line)
    return "\n".join(out)


def _fix_cell(rule: RuleInfo) -> str:
    return f"{rule.fix_title} ({rule.fix_safety or 'safe'})" if rule.fix_title else "—"


def render(rules: Sequence[RuleInfo]) -> str:
    table = "".join(
        f"| [{r.code}](#{r.code.lower()}) | {r.name} | {r.severity.value} | {_fix_cell(r)} |\n" for r in rules
    )
    sections = []
    for r in rules:
        fix = f"autofix ({r.fix_safety or 'safe'}): {r.fix_title}" if r.fix_title else "no autofix"
        sections.append(
            f"## {r.code}\n\n**{r.name}** · {r.severity.value} · {fix}\n\n{_demote(r.doc).strip()}\n"
        )
    return HEADER + table + "\n" + "\n".join(sections)


def main() -> None:
    from core.rules.registry import RULES

    sys.stdout.write(render(list(RULES.values())))


if __name__ == "__main__":
    main()
