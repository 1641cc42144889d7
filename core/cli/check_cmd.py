"""`proctor rule` (rule docs) and the typer face of `proctor check` (which lives in `core.cli.check_run`)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from core.cli.check_run import CHECK_HELP, check_main

RULE_FORMATS = ("text", "json")


def _fail(message: str) -> typer.Exit:
    """A usage error: one line on stderr, exit 2."""
    print(f"proctor: error: {message}", file=sys.stderr)
    return typer.Exit(2)


def check(ctx: typer.Context) -> None:
    """Lint evaluators, briefs and config against the contract (exit 0 clean, 1 errors found, 2 usage error)."""
    raise typer.Exit(check_main(list(ctx.args)))


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
    passthrough = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}
    app.command("check", help=CHECK_HELP, context_settings=passthrough, add_help_option=False)(check)
    app.command("rule")(rule)
