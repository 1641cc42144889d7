"""`proctor fingerprint`, `proctor guard` and `proctor registry list|show|register` (SPEC §4, §6)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from core.integrity.settings import GuardConfig


class OutputFormat(enum.StrEnum):
    text = "text"
    json = "json"


FormatOption = Annotated[OutputFormat, typer.Option("--format", help="text or json.")]
RepoOption = Annotated[Path, typer.Option("--repo", help="The git repository / workspace (default: .).")]


def _config_at(repo: Path, commit: str) -> GuardConfig:
    """The config as committed in `commit` (the baseline's, never the candidate's).

    pydantic is imported only for a config file it has not accepted before: without one the defaults need
    no validation, and an accepted one is remembered by blob id (`ValidatedConfigs`).
    """
    from core.integrity.git import object_store, state_dir
    from core.integrity.settings import CONFIG_FILE, DEFAULTS, PYPROJECT_FILE, ValidatedConfigs

    store = object_store(repo)
    store.require([commit])  # path lookups below are trusted only once the store sees the commit
    infos = store.info([f"{commit}:{CONFIG_FILE}", f"{commit}:{PYPROJECT_FILE}"])
    for info, name in zip(infos, (CONFIG_FILE, PYPROJECT_FILE), strict=True):
        if info.type != "blob" or info.oid is None:
            continue
        state = state_dir(repo)
        accepted = ValidatedConfigs(state / "configs.json" if state is not None else None)
        known = accepted.get(info.oid, name)
        if known is not None:
            return known
        text = store.blobs([info.oid])[info.oid].decode("utf-8", "replace")
        if name == PYPROJECT_FILE:
            import tomllib

            try:
                tool = tomllib.loads(text).get("tool", {})
            except tomllib.TOMLDecodeError:
                tool = {}
            if not isinstance(tool, dict) or "proctor" not in tool:
                continue
        from core.config import parse_config_text

        config = parse_config_text(text, f"{commit[:12]}:{name}", pyproject=name == PYPROJECT_FILE)
        accepted.put(info.oid, name, config)
        return config
    return DEFAULTS


def register(app: typer.Typer) -> None:
    @app.command("fingerprint")
    def fingerprint(
        suite_dir: Annotated[
            Path | None,
            typer.Argument(help="The suite directory (default: evaluation_dir from the config in .)."),
        ] = None,
        output: FormatOption = OutputFormat.text,
    ) -> None:
        """Print the suite's Kapso-compatible manifest and evaluator_id, and each file's mode and type."""
        from core.config import load_config
        from core.errors import IntegrityError
        from core.integrity.manifest import snapshot
        from core.integrity.render import fingerprint_json, fingerprint_text

        suite = (
            suite_dir if suite_dir is not None else Path(".") / load_config(Path(".")).config.evaluation_dir
        )
        snap = snapshot(suite)
        links = [rel for rel, mode in snap.modes.items() if mode["type"] == "symlink"]
        if links:
            raise IntegrityError(
                f"the suite {suite} contains a symlink: {links[0]} (Kapso cannot fingerprint it)"
            )
        if not snap.manifest:
            raise IntegrityError(f"the suite directory contains no files: {suite}")
        render = fingerprint_json if output is OutputFormat.json else fingerprint_text
        typer.echo(render(suite.as_posix(), snap))

    @app.command("guard")
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
        from core.integrity.guard import guard_refs
        from core.integrity.render import guard_json, guard_text

        base_is_dir, cand_is_dir = Path(baseline).is_dir(), Path(candidate).is_dir()
        if not base_is_dir and not cand_is_dir:
            from core.integrity.git import resolve_commits

            base_commit, cand_commit = resolve_commits(repo, [baseline, candidate])
            report = guard_refs(repo, base_commit, cand_commit, _config_at(repo, base_commit))
        else:
            import tempfile

            from core.config import load_config
            from core.integrity.guard import guard_trees
            from core.integrity.materialize import materialize

            with tempfile.TemporaryDirectory(prefix="proctor-guard-") as tmp:
                base_dir = Path(baseline) if base_is_dir else Path(tmp) / "baseline"
                cand_dir = Path(candidate) if cand_is_dir else Path(tmp) / "candidate"
                if not base_is_dir:
                    materialize(repo, baseline, base_dir)
                if not cand_is_dir:
                    materialize(repo, candidate, cand_dir)
                config = load_config(base_dir).config
                report = guard_trees(base_dir, cand_dir, config)
        typer.echo(guard_json(report) if output is OutputFormat.json else guard_text(report))
        raise typer.Exit(0 if report.verdict == "accepted" else 1)

    registry_app = typer.Typer(
        name="registry",
        help="The evaluation registry (.kapso/evaluation_registry.json).",
        no_args_is_help=True,
    )
    app.add_typer(registry_app, name="registry")

    @registry_app.command("list")
    def registry_list(repo: RepoOption = Path("."), output: FormatOption = OutputFormat.text) -> None:
        """Every registered evaluator version, oldest first (* marks the head)."""
        from core.integrity.render import registry_json, registry_list_text
        from core.registry import load_registry

        entries = load_registry(repo)
        typer.echo(registry_json(entries) if output is OutputFormat.json else registry_list_text(entries))

    @registry_app.command("show")
    def registry_show(
        version: Annotated[int | None, typer.Argument(help="The version (default: the head).")] = None,
        repo: RepoOption = Path("."),
        output: FormatOption = OutputFormat.text,
    ) -> None:
        """One registered version in full."""
        import json

        from core.errors import RegistryError
        from core.integrity.render import entry_text
        from core.registry import load_registry

        entries = load_registry(repo)
        if not entries:
            raise RegistryError(f"no evaluator is registered in {repo}")
        if version is None:
            entry = entries[-1]
        elif 1 <= version <= len(entries):
            entry = entries[version - 1]
        else:
            raise RegistryError(f"version {version} is not registered (versions 1..{len(entries)} are)")
        typer.echo(
            json.dumps(entry.to_json(), indent=2) if output is OutputFormat.json else entry_text(entry)
        )

    @registry_app.command("register")
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
            raise WorkspaceError(f"workspace {str(repo)!r} does not exist or is not a directory")
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
