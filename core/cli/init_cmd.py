"""`proctor init`: scaffold the evaluator from the brief's Measured-by protocol (SPEC §3.4)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer


def init(
    workspace: Annotated[
        Path, typer.Argument(help="The workspace (default: the current directory).")
    ] = Path(),
    brief: Annotated[
        str | None, typer.Option("--brief", help="The brief file (default: config `brief`).")
    ] = None,
    label: Annotated[
        str | None, typer.Option("--label", help="The label column (default: the data's last column).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing evaluator.")] = False,
) -> None:
    """Write <suite>/evaluate.py from the brief (exit 0, 1 protocol incomplete, 2 error)."""
    from core.config import load_config
    from core.errors import IncompleteProtocol, WorkspaceError
    from core.scaffold import scaffold_evaluator

    if not workspace.is_dir():
        raise WorkspaceError(f"{workspace}: no such workspace directory", path=workspace)
    config = load_config(workspace).config
    try:
        made = scaffold_evaluator(workspace, config, brief=brief, label=label, force=force)
    except IncompleteProtocol as exc:
        _print_brief_findings(workspace, brief or config.brief)
        print(f"proctor: {exc}", file=sys.stderr)
        raise typer.Exit(1) from None
    print(f"wrote {made.path} (metric {made.metric}, candidate entry point {made.entry_point})")
    for note in made.notes:
        print(f"  note: {note}")
    print("next: `proctor check`, `proctor verify`, then protect it with")
    print('  proctor registry register --provenance maintainer_built --reason "proposed from the brief"')


def _print_brief_findings(workspace: Path, brief: str) -> None:
    from core.check import check_targets

    for result in check_targets([workspace / brief], [], [], fix=False, cwd=workspace):
        for d in result.diagnostics:
            if d.code.startswith("BR"):
                line = d.range.start.line + 1
                print(f"{d.path}:{line}:{d.range.start.character + 1}: {d.code} {d.message}", file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.command("init")(init)
