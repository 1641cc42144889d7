"""`proctor verify [WORKSPACE] [--runs N] [--format text|json]`: run the evaluator and check its contract."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer


class VerifyFormat(enum.StrEnum):
    text = "text"
    json = "json"


def register(app: typer.Typer) -> None:
    @app.command("verify")
    def verify(
        workspace: Annotated[
            Path, typer.Argument(help="The workspace root (default: the current directory).")
        ] = Path("."),
        runs: Annotated[
            int,
            typer.Option("--runs", min=1, help="Full runs to compare for determinism (1 skips the clause)."),
        ] = 2,
        output: Annotated[VerifyFormat, typer.Option("--format", help="text or json.")] = VerifyFormat.text,
    ) -> None:
        """Run the evaluator in a temp copy of the workspace and check every clause of the contract.

        Exit 0 when every clause passes (warnings allowed), 1 when a clause fails, 2 when verify cannot run
        (missing workspace, invalid config). A stale kapso_evaluation/result.json is refused before anything
        runs, like a campaign launch (IN006): the report says so and the exit code is 1.
        """
        from core.config import load_config
        from core.errors import WorkspaceError
        from core.report.verify_render import render_json, render_text
        from core.verify import verify_workspace

        if not workspace.is_dir():
            raise WorkspaceError(
                f"workspace {str(workspace)!r} does not exist or is not a directory", path=workspace
            )
        loaded = load_config(workspace)
        report = verify_workspace(workspace, loaded.config, runs=runs, sandbox=loaded.config.campaign.sandbox)
        typer.echo(render_json(report) if output is VerifyFormat.json else render_text(report))
        raise typer.Exit(0 if report.passed else 1)
