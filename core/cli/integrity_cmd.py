"""`proctor fingerprint`, `proctor guard` and `proctor registry list|show|register` (SPEC §4, §6)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from core.registry import RegistryEntry


class OutputFormat(enum.StrEnum):
    text = "text"
    json = "json"


FormatOption = Annotated[OutputFormat, typer.Option("--format", help="text or json.")]
RepoOption = Annotated[Path, typer.Option("--repo", help="The git repository / workspace (default: .).")]


def register(app: typer.Typer) -> None:
    app.command("fingerprint")(fingerprint)
    app.command("guard")(guard)
    registry_app = typer.Typer(
        name="registry",
        help="The evaluation registry (.kapso/evaluation_registry.json).",
        no_args_is_help=True,
    )
    registry_app.command("list")(registry_list)
    registry_app.command("show")(registry_show)
    registry_app.command("register")(registry_register)
    app.add_typer(registry_app, name="registry")


def fingerprint(
    suite_dir: Annotated[
        Path | None,
        typer.Argument(help="The suite directory (default: evaluation_dir from the config in .)."),
    ] = None,
    output: FormatOption = OutputFormat.text,
) -> None:
    """Print the suite's Kapso-compatible manifest and evaluator_id, and each file's mode and type."""
    from core.integrity.render import fingerprint_json, fingerprint_text
    from core.integrity.sides import fingerprint_suite

    if suite_dir is None:
        from core.config import load_config

        suite_dir = Path(".") / load_config(Path(".")).config.evaluation_dir
    snap = fingerprint_suite(suite_dir)
    render = fingerprint_json if output is OutputFormat.json else fingerprint_text
    typer.echo(render(suite_dir.as_posix(), snap))


def guard(
    baseline: Annotated[str, typer.Option("--baseline", help="Baseline commit/ref, or a directory.")],
    candidate: Annotated[str, typer.Option("--candidate", help="Candidate commit/ref, or a directory.")],
    repo: RepoOption = Path("."),
    output: FormatOption = OutputFormat.text,
) -> None:
    """Would the candidate be rejected for tampering with the evaluation (IN001–IN011)?

    REF or DIR: an existing directory is a working tree, anything else a ref in --repo. Config comes from
    the baseline. Exit 0 accepted, 1 rejected, 2 error.
    """
    from core.integrity.render import guard_json, guard_text
    from core.integrity.sides import guard_sides

    report = guard_sides(repo, baseline, candidate)
    typer.echo(guard_json(report) if output is OutputFormat.json else guard_text(report))
    raise typer.Exit(0 if report.verdict == "accepted" else 1)


def registry_list(repo: RepoOption = Path("."), output: FormatOption = OutputFormat.text) -> None:
    """Every registered evaluator version, oldest first (* marks the head)."""
    from core.integrity.render import registry_json, registry_list_text
    from core.registry import load_registry

    entries = load_registry(repo)
    typer.echo(registry_json(entries) if output is OutputFormat.json else registry_list_text(entries))


def registry_show(
    version: Annotated[int | None, typer.Argument(help="The version (default: the head).")] = None,
    repo: RepoOption = Path("."),
    output: FormatOption = OutputFormat.text,
) -> None:
    """One registered version in full."""
    import json

    from core.integrity.render import entry_text

    entry = _registered(repo, version)
    typer.echo(json.dumps(entry.to_json(), indent=2) if output is OutputFormat.json else entry_text(entry))


def _registered(repo: Path, version: int | None) -> RegistryEntry:
    """Version `version` of the registry in `repo` (the head when None); a RegistryError names what exists."""
    from core.errors import RegistryError
    from core.registry import load_registry

    entries = load_registry(repo)
    if not entries:
        raise RegistryError(f"no evaluator is registered in {repo}")
    if version is None:
        return entries[-1]
    if 1 <= version <= len(entries):
        return entries[version - 1]
    raise RegistryError(f"version {version} is not registered (versions 1..{len(entries)} are)")


def registry_register(
    provenance: Annotated[
        str, typer.Option("--provenance", help="provided | maintainer_built | derived_fast")
    ],
    reason: Annotated[str, typer.Option("--reason", help="Why this version exists.")],
    repo: RepoOption = Path("."),
    output: FormatOption = OutputFormat.text,
) -> None:
    """Register the workspace's suite as the next version (an unchanged suite keeps the head)."""
    import json

    from core.config import load_config
    from core.errors import WorkspaceError
    from core.integrity.guard import refuse_stale_result
    from core.registry import head, register

    if not repo.is_dir():
        raise WorkspaceError(f"workspace {str(repo)!r} does not exist or is not a directory", path=repo)
    config = load_config(repo).config
    refuse_stale_result(repo, config)
    before = head(repo)
    entry = register(
        repo,
        repo / config.evaluation_dir,
        provenance,
        reason,
        data_paths=[config.data_dir, *config.protected_paths],
    )
    if output is OutputFormat.json:
        typer.echo(json.dumps(entry.to_json(), indent=2))
    elif before is not None and before.version == entry.version:
        typer.echo(f"unchanged: the suite is already v{entry.version} ({entry.evaluator_id[:12]})")
    else:
        typer.echo(f"registered v{entry.version} ({entry.evaluator_id[:12]}, {entry.provenance})")
