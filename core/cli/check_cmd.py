"""`proctor check` (static rules on evaluators, briefs and config) and `proctor rule` (rule docs). SPEC §6."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from core.check import CheckResult

CHECK_FORMATS = ("text", "json", "sarif", "github")
RULE_FORMATS = ("text", "json")


def _fail(message: str) -> typer.Exit:
    """A usage error: one line on stderr, exit 2."""
    print(f"proctor: error: {message}", file=sys.stderr)
    return typer.Exit(2)


def _codes(value: str | None, option: str) -> list[str]:
    from core.rules.registry import RULES

    codes = [part.strip().upper() for part in (value or "").split(",") if part.strip()]
    for code in codes:
        if not any(known.startswith(code) for known in RULES):
            raise _fail(f"{option}: unknown rule code or prefix {code!r} (see `proctor rule --all`)")
    return codes


def _display_prefix(workspace: Path, cwd: Path) -> str:
    """Paths are shown relative to the current directory when the workspace is under it (so GitHub
    annotations and SARIF match the checkout), and relative to the workspace otherwise."""
    workspace, cwd = workspace.resolve(), cwd.resolve()
    if workspace == cwd or cwd not in workspace.parents:
        return ""
    return workspace.relative_to(cwd).as_posix()


def check(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Workspaces (directories) or files; default: the current directory."),
    ] = None,
    output: Annotated[str, typer.Option("--format", help="text, json, sarif or github.")] = "text",
    select: Annotated[
        str | None, typer.Option("--select", help="Only these codes or prefixes, comma-separated.")
    ] = None,
    ignore: Annotated[
        str | None, typer.Option("--ignore", help="Skip these codes or prefixes, comma-separated.")
    ] = None,
    fix: Annotated[
        bool, typer.Option("--fix", help="Apply the safe autofixes, then report what is left.")
    ] = False,
    unsafe_fixes: Annotated[
        bool,
        typer.Option("--unsafe-fixes", help="With --fix, also apply the unsafe ones (see `proctor rule`)."),
    ] = False,
) -> None:
    """Lint evaluators, briefs and config against the contract (exit 0 clean, 1 errors found, 2 usage error)."""
    if output not in CHECK_FORMATS:
        raise _fail(f"--format: expected one of {', '.join(CHECK_FORMATS)}, got {output!r}")
    selected, ignored = _codes(select, "--select"), _codes(ignore, "--ignore")

    from core.check import check_targets, with_path_prefix
    from core.report.check_render import render
    from core.rules.registry import RULES

    cwd = Path.cwd()
    results = check_targets(list(paths or []), selected, ignored, fix=fix, unsafe_fixes=unsafe_fixes, cwd=cwd)
    diagnostics = [
        with_path_prefix(d, _display_prefix(result.workspace, cwd))
        for result in results
        for d in result.diagnostics
    ]
    files = sum(len(result.documents) for result in results)
    if files == 0:
        where = ", ".join(str(result.workspace) for result in results) or str(cwd)
        raise _fail(
            f"no file checked in {where}: no evaluator (kapso_evaluation/evaluate.py or `command` in "
            "proctor.toml), brief or proctor.toml found"
        )
    fixed = sum(result.fix_report.count for result in results if result.fix_report is not None)
    sys.stdout.write(
        render(
            output,
            diagnostics,
            rules=list(RULES.values()),
            files=files,
            fixed=fixed,
            unsafe_fixes=unsafe_fixes,
        )
    )
    sys.stdout.flush()
    for result in results:
        _report_refused(result, _display_prefix(result.workspace, cwd))
    for result in results:
        if result.config_error is not None:
            raise result.config_error  # one line and exit 2 (core.cli.main); the CF001 findings are above
    raise typer.Exit(1 if any(result.has_errors for result in results) else 0)


def _report_refused(result: CheckResult, prefix: str) -> None:
    """Each fix that was not written, one line on stderr (stdout stays the chosen format)."""
    from core.check import with_path_prefix

    if result.fix_report is None:
        return
    for refused in result.fix_report.refused:
        d = with_path_prefix(refused.diagnostic, prefix)
        start = d.range.start
        print(
            f"{d.path}:{start.line + 1}:{start.character + 1}: {d.code} fix refused: {refused.reason}",
            file=sys.stderr,
        )


def rule(
    code: Annotated[str | None, typer.Argument(help="A rule code, e.g. BR001.")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="List every rule.")] = False,
    output: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Print a rule's documentation, or list every rule with --all."""
    import json

    from core.report.check_render import rule_json, rules_text
    from core.rules.registry import RULES, get_rule

    if output not in RULE_FORMATS:
        raise _fail(f"--format: expected one of {', '.join(RULE_FORMATS)}, got {output!r}")
    if show_all == (code is not None):
        raise _fail("give one rule code (e.g. `proctor rule BR001`) or --all")
    if show_all:
        infos = list(RULES.values())
        text = (
            json.dumps([rule_json(i) for i in infos], indent=2) + "\n"
            if output == "json"
            else rules_text(infos)
        )
        sys.stdout.write(text)
        return
    assert code is not None
    info = get_rule(code)
    if info is None:
        raise _fail(f"unknown rule code {code!r} (see `proctor rule --all`)")
    if output == "json":
        sys.stdout.write(json.dumps(rule_json(info), indent=2) + "\n")
        return
    fix = f"fix ({info.fix_safety or 'safe'}): {info.fix_title}" if info.fix_title else "no autofix"
    sys.stdout.write(f"# {info.code} {info.name} ({info.severity.value}, {fix})\n\n{info.doc}\n")


def register(app: typer.Typer) -> None:
    app.command("check")(check)
    app.command("rule")(rule)
