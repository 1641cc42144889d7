"""`proctor check` (static rules on evaluators, briefs and config), SPEC §6, without typer.

`check` parses its own arguments with argparse (`check_main`), so `proctor check` starts without importing
typer or building the command tree: `core.cli.main` calls `check_main` directly, and the typer command in
`core.cli.check_cmd` only forwards to it (so `proctor --help` lists it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from core.errors import UsageError

if TYPE_CHECKING:
    from core.check import CheckResult
    from core.rules.base import RuleInfo

CHECK_FORMATS = ("text", "json", "sarif", "github")
CHECK_HELP = (
    "Lint evaluators, briefs and config against the contract (exit 0 clean, 1 errors found, 2 usage error)."
)


def _codes(value: str | None, option: str) -> list[str]:
    codes = [part.strip().upper() for part in (value or "").split(",") if part.strip()]
    if not codes:
        return codes
    from core.rules.base import DocumentKind
    from core.rules.registry import RULES

    for code in codes:
        matches = [info for known, info in RULES.items() if known.startswith(code)]
        if not matches:
            raise UsageError(f"{option}: unknown rule code or prefix {code!r} (see `proctor rule --all`)")
        if all(DocumentKind.CHANGE in info.kinds for info in matches):
            raise UsageError(
                f"{option}: {code!r} names integrity rules, which `proctor guard` reports on a candidate's "
                "change, not `proctor check`"
            )
    return codes


def _display_prefix(workspace: Path, cwd: Path) -> str:
    """Paths are shown relative to the current directory when the workspace is under it (so GitHub
    annotations and SARIF match the checkout), and relative to the workspace otherwise."""
    workspace, cwd = workspace.resolve(), cwd.resolve()
    if workspace == cwd or cwd not in workspace.parents:
        return ""
    return workspace.relative_to(cwd).as_posix()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def check_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="proctor check", description=CHECK_HELP)
    parser.add_argument(
        "paths", nargs="*", type=Path, help="Workspaces (directories) or files; default: the workspace root."
    )
    parser.add_argument("--format", dest="output", default="text", help="text, json, sarif or github.")
    parser.add_argument("--select", help="Only these codes or prefixes, comma-separated.")
    parser.add_argument("--ignore", help="Skip these codes or prefixes, comma-separated.")
    parser.add_argument(
        "--fix", action="store_true", help="Apply the safe autofixes, then report what is left."
    )
    parser.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="With --fix, also apply the unsafe ones (see `proctor rule`).",
    )
    return parser


def check_main(argv: list[str]) -> int:
    """`proctor check ARGS`: the exit code. A ProctorError (bad workspace, bad config) propagates to
    `core.cli.main`, which prints it as one line with exit 2."""
    try:
        args = check_parser().parse_args(argv)
        return run_check(args.paths, args.output, args.select, args.ignore, args.fix, args.unsafe_fixes)
    except UsageError as exc:
        print(f"proctor: error: {exc}", file=sys.stderr)
        return 2


def run_check(
    paths: list[Path], output: str, select: str | None, ignore: str | None, fix: bool, unsafe_fixes: bool
) -> int:
    if output not in CHECK_FORMATS:
        raise UsageError(f"--format: expected one of {', '.join(CHECK_FORMATS)}, got {output!r}")
    selected, ignored = _codes(select, "--select"), _codes(ignore, "--ignore")

    from core.check import check_targets, with_path_prefix
    from core.report.check_render import render

    cwd = Path.cwd()
    results = check_targets(list(paths), selected, ignored, fix=fix, unsafe_fixes=unsafe_fixes, cwd=cwd)
    diagnostics = [
        with_path_prefix(d, _display_prefix(result.workspace, cwd))
        for result in results
        for d in result.diagnostics
    ]
    files = sum(len(result.documents) for result in results)
    if files == 0:
        where = ", ".join(str(result.workspace) for result in results) or str(cwd)
        raise UsageError(
            f"no file checked in {where}: no evaluator (kapso_evaluation/evaluate.py or `command` in "
            "proctor.toml), brief or proctor.toml found"
        )
    fixed = sum(result.fix_report.count for result in results if result.fix_report is not None)
    sys.stdout.write(
        render(
            output,
            diagnostics,
            rules=_sarif_rules() if output == "sarif" else [],
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
    return 1 if any(result.has_errors for result in results) else 0


def _sarif_rules() -> list[RuleInfo]:
    """Every rule, for SARIF's tool.driver.rules (the other formats need no table: the integrity rules'
    modules are not imported for them)."""
    from core.rules.registry import RULES

    return list(RULES.values())


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
