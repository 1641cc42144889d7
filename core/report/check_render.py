"""`proctor check` output: text (ruff-like), JSON (SPEC §6), SARIF 2.1.0 (code scanning), GitHub workflow commands.

Renderers are pure: diagnostics in (paths already as the reader should see them), a string out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from core import __version__
from core.diagnostics import Applicability, Diagnostic, FindingSeverity, Range, Severity, rule_url
from core.rules.base import RuleInfo

__all__ = [
    "FORMATS",
    "render",
    "render_github",
    "render_json",
    "render_sarif",
    "render_text",
    "rule_json",
    "rules_text",
]

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/proctor-dev/proctor"
_SARIF_LEVEL: dict[Severity | FindingSeverity, str] = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
    FindingSeverity.REJECT: "error",  # the integrity rules, listed with the others; `proctor guard` reports them
    FindingSeverity.FLAG: "warning",
}
_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _fixable(d: Diagnostic, unsafe_fixes: bool) -> bool:
    return d.fix is not None and (unsafe_fixes or d.fix.applicability is Applicability.SAFE)


def render_text(
    diagnostics: Sequence[Diagnostic], *, files: int, fixed: int = 0, unsafe_fixes: bool = False
) -> str:
    """`path:line:col: CODE [*] message` per finding ([*] = fixable by `--fix`), then a one-line summary."""
    lines = []
    for d in diagnostics:
        start = d.range.start
        mark = " [*]" if _fixable(d, unsafe_fixes) else ""
        lines.append(f"{d.path}:{start.line + 1}:{start.character + 1}: {d.code}{mark} {d.message}")
        for related in d.related:
            r = related.range.start
            lines.append(f"  {related.path}:{r.line + 1}:{r.character + 1}: {related.message}")
    if fixed:
        lines.append(f"Fixed {_plural(fixed, 'issue')}.")
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    infos = len(diagnostics) - errors - warnings
    fixable = sum(1 for d in diagnostics if _fixable(d, unsafe_fixes))
    hidden = sum(1 for d in diagnostics if d.fix is not None) - fixable
    if not diagnostics:
        lines.append(f"All checks passed ({_plural(files, 'file')} checked).")
    else:
        parts = [_plural(errors, "error"), _plural(warnings, "warning")]
        if infos:
            parts.append(_plural(infos, "note"))
        summary = f"Found {', '.join(parts)} in {_plural(files, 'file')} checked."
        if fixable:
            flags = "--fix --unsafe-fixes" if unsafe_fixes else "--fix"
            summary += f" {fixable} fixable with `proctor check {flags}`."
        if hidden:
            summary += f" {hidden} unsafe fix{'' if hidden == 1 else 'es'} available with `--unsafe-fixes`."
        lines.append(summary)
    return "\n".join(lines) + "\n"


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    """Exactly SPEC §6: `{"schema": 1, "diagnostics": [...]}` with 1-based lines and columns."""
    return json.dumps({"schema": 1, "diagnostics": [d.to_json() for d in diagnostics]}, indent=2) + "\n"


def _region(range_: Range) -> dict[str, int]:
    return {
        "startLine": range_.start.line + 1,
        "startColumn": range_.start.character + 1,
        "endLine": range_.end.line + 1,
        "endColumn": range_.end.character + 1,
    }


def _location(path: str, range_: Range) -> dict[str, object]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
            "region": _region(range_),
        }
    }


def _first_paragraph(doc: str) -> str:
    """The text under `## What it does`: the rule's one-paragraph summary."""
    body = doc.split("## What it does", 1)[-1].split("\n## ", 1)[0]
    return " ".join(body.split()) or doc.strip()


def _sarif_rule(info: RuleInfo) -> dict[str, object]:
    rule: dict[str, object] = {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.name.replace("-", " ")},
        "fullDescription": {"text": _first_paragraph(info.doc)},
        "help": {"text": info.doc, "markdown": info.doc},
        "helpUri": rule_url(info.code),
        "defaultConfiguration": {"level": _SARIF_LEVEL[info.severity]},
        "properties": {"fixable": info.fix_title is not None},
    }
    return rule


def _sarif_result(d: Diagnostic, rule_index: Mapping[str, int]) -> dict[str, object]:
    result: dict[str, object] = {
        "ruleId": d.code,
        "level": _SARIF_LEVEL[d.severity],
        "message": {"text": d.message},
        "locations": [_location(d.path, d.range)],
    }
    if d.code in rule_index:
        result["ruleIndex"] = rule_index[d.code]
    if d.related:
        result["relatedLocations"] = [
            {**_location(r.path, r.range), "id": index, "message": {"text": r.message}}
            for index, r in enumerate(d.related)
        ]
    if d.fix is not None and d.fix.edits:
        changes: dict[str, list[dict[str, object]]] = {}
        for edit in d.fix.edits:
            changes.setdefault(edit.path, []).append(
                {"deletedRegion": _region(edit.range), "insertedContent": {"text": edit.new_text}}
            )
        result["fixes"] = [
            {
                "description": {"text": d.fix.title},
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
                        "replacements": replacements,
                    }
                    for path, replacements in changes.items()
                ],
            }
        ]
    return result


def render_sarif(diagnostics: Sequence[Diagnostic], rules: Sequence[RuleInfo]) -> str:
    """SARIF 2.1.0 for GitHub code scanning: every rule in tool.driver.rules, one result per finding.

    Columns are code points (`columnKind: unicodeCodePoints`), which is what Proctor's positions are.
    """
    rule_index = {info.code: index for index, info in enumerate(rules)}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "proctor",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_sarif_rule(info) for info in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {
                    "%SRCROOT%": {"description": {"text": "The directory proctor ran in."}}
                },
                "results": [_sarif_result(d, rule_index) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render_github(diagnostics: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands: `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=CODE::message`."""
    lines = []
    for d in diagnostics:
        props = {
            "file": d.path,
            "line": d.range.start.line + 1,
            "col": d.range.start.character + 1,
            "endLine": d.range.end.line + 1,
            "endColumn": d.range.end.character + 1,
            "title": f"{d.code} {d.name}",
        }
        joined = ",".join(f"{key}={_escape_property(str(value))}" for key, value in props.items())
        lines.append(f"::{_GITHUB_COMMAND[d.severity]} {joined}::{_escape_data(f'{d.code} {d.message}')}")
    return "".join(line + "\n" for line in lines)


def render(
    output: str,
    diagnostics: Sequence[Diagnostic],
    *,
    rules: Sequence[RuleInfo] = (),
    files: int = 0,
    fixed: int = 0,
    unsafe_fixes: bool = False,
) -> str:
    if output == "json":
        return render_json(diagnostics)
    if output == "sarif":
        return render_sarif(diagnostics, rules)
    if output == "github":
        return render_github(diagnostics)
    return render_text(diagnostics, files=files, fixed=fixed, unsafe_fixes=unsafe_fixes)


def rule_json(info: RuleInfo) -> dict[str, object]:
    """One entry of `proctor rule --all --format json`."""
    return {
        "code": info.code,
        "name": info.name,
        "severity": info.severity.value,
        "fix": info.fix_title,
        "fix_safety": None if info.fix_safety is None else info.fix_safety.value,
        "doc": info.doc,
        "url": rule_url(info.code),
    }


def rules_text(rules: Sequence[RuleInfo]) -> str:
    """`proctor rule --all`: one line per rule; `*` marks rules with an autofix."""
    width = max((len(info.name) for info in rules), default=0)
    lines = [
        f"{info.code}  {info.name:<{width}}  {info.severity.value:<7}  {'*' if info.fix_title else ' '}"
        for info in rules
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"
