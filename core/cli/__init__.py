"""The `proctor` command line. Commands are thin: parse, call one core function, render.

Each command group lives in its own module with a `register(app)` function; heavy imports happen inside the
commands so `proctor guard` starts fast. Typer inspects every registered function's signature when the app
runs, so `main` registers only the module of the command being run (`COMMANDS`); help, completion and
unknown commands get them all. `main` is the one place a `ProctorError` becomes one line and exit 2
(a traceback only with `--debug`). `proctor check` skips typer altogether (`core.cli.check_run` parses its
own arguments), so linting starts without building the command tree.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer

COMMAND_MODULES = (
    "core.cli.check_cmd",
    "core.cli.verify_cmd",
    "core.cli.integrity_cmd",
    "core.cli.campaign_cmd",
    "core.cli.judge_cmd",
    "core.cli.init_cmd",
    "core.cli.report_cmd",
    "core.cli.worker_cmd",
)

# Top-level command name -> the module whose `register` adds it (a test keeps this complete).
COMMANDS = {
    "check": "core.cli.check_cmd",
    "rule": "core.cli.check_cmd",
    "verify": "core.cli.verify_cmd",
    "fingerprint": "core.cli.integrity_cmd",
    "guard": "core.cli.integrity_cmd",
    "registry": "core.cli.integrity_cmd",
    "campaign": "core.cli.campaign_cmd",
    "demo": "core.cli.campaign_cmd",
    "judge": "core.cli.judge_cmd",
    "init": "core.cli.init_cmd",
    "report": "core.cli.report_cmd",
    "worker": "core.cli.worker_cmd",
}


def _command_of(args: Sequence[str]) -> str | None:
    """The command word of an argument list (the first one that is not a root option)."""
    for arg in args:
        if arg == "--debug":
            continue
        return arg if arg in COMMANDS else None
    return None


def _print_version(value: bool) -> None:
    import typer

    if value:
        from core import __version__

        typer.echo(f"proctor {__version__}")
        raise typer.Exit(0)


def build_app(command: str | None = None) -> typer.Typer:
    """The app with every command, or only the module that defines `command`."""
    import typer

    app = typer.Typer(
        name="proctor",
        help="Keep evaluation-driven development honest: check evaluators, guard the suite, run campaigns.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )

    @app.callback()
    def _root(
        debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
        version: bool = typer.Option(
            False, "--version", is_eager=True, callback=_print_version, help="Print the version and exit."
        ),
    ) -> None:
        """Proctor: the evaluator contract, tamper guard, campaigns and LLM judge."""

    modules = (COMMANDS[command],) if command in COMMANDS else COMMAND_MODULES
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(app)
    return app


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (console script entry point)."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    command = _command_of(args)
    if command == "check":
        rest = args[args.index("check") + 1 :]

        def run_check() -> object:
            from core.cli.check_run import check_main

            return check_main(rest)

        return _guarded(run_check, debug)
    app = build_app(command)
    return _guarded(lambda: app(args=args, prog_name="proctor", standalone_mode=False), debug)


def _guarded(run: Callable[[], object], debug: bool) -> int:
    """Run a command; every way it can end becomes an exit code (one line on stderr for errors)."""
    from core.errors import ProctorError

    try:
        result = run()
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    except ProctorError as exc:
        if debug:
            raise
        print(f"proctor: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("proctor: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        # Typer vendors click; its usage errors and Exit are recognised by shape, not by class.
        if type(exc).__name__ == "Exit" and hasattr(exc, "exit_code"):
            return int(exc.exit_code)
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            return 2
        if type(exc).__name__ == "Abort":
            return 130
        if debug:
            raise
        print(
            f"proctor: internal error: {type(exc).__name__}: {exc} (run with --debug for details)",
            file=sys.stderr,
        )
        return 2
    return result if isinstance(result, int) else 0


def run() -> None:
    """The `proctor` program: its secrets leave its environment before anything else happens."""
    from core import secrets

    secrets.hide_all()
    sys.exit(main())
