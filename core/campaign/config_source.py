"""Which proctor.toml a campaign runs with, and whether the working tree's disagrees.

A campaign reads its config from the baseline commit, never from a candidate or the working tree: a candidate
must not choose its own evaluator command. People edit proctor.toml and forget to commit it, so the campaign
says in its first line whose config it uses and warns when the working tree's file differs or does not parse.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.config import Config, LoadedConfig, load_config
from core.errors import ConfigError


@dataclass(frozen=True)
class ConfigSource:
    """`line` says where the config came from; `warning` is set when the working tree's config disagrees."""

    line: str
    warning: str | None


def describe_source(
    root: Path | None, baseline_ref: str, baseline_commit: str, loaded: LoadedConfig, baseline_dir: Path
) -> ConfigSource:
    """The one-line provenance of `loaded` (read from the baseline's materialized tree) and the comparison
    with the config in the working tree at `root` (None: a bare repository, no working tree)."""
    at = f"{baseline_ref} ({baseline_commit[:10]})"
    if loaded.path is None:
        line = f"default config (no proctor.toml or [tool.proctor] in the baseline commit {at})"
        name = "proctor.toml"
    else:
        name = loaded.path.relative_to(baseline_dir).as_posix()
        line = f"config {name} from the baseline commit {at}"
    return ConfigSource(line, _compare(root, name, at, loaded.config) if root is not None else None)


def _compare(root: Path, name: str, at: str, baseline: Config) -> str | None:
    try:
        working = load_config(root)
    except ConfigError as exc:
        key = f", `{exc.key}`" if exc.key else ""
        return (
            f"the working tree's {exc.path.name} does not parse (line {exc.line}{key}: {exc.problem}); this "
            f"campaign uses the committed one of {at}"
        )
    keys = _differing_keys(baseline.model_dump(), working.config.model_dump())
    if not keys:
        return None
    shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
    return (
        f"the working tree's config differs from {name} of {at} ({shown}); this campaign uses the "
        "committed one: commit your change to measure with it"
    )


def _differing_keys(a: dict[str, Any], b: dict[str, Any], prefix: str = "") -> list[str]:
    keys: list[str] = []
    for key in sorted(set(a) | set(b)):
        left, right = a.get(key), b.get(key)
        if isinstance(left, dict) and isinstance(right, dict) and key in ("campaign", "judge", "github"):
            keys += _differing_keys(left, right, f"{prefix}{key}.")
        elif left != right:
            keys.append(prefix + key)
    return keys
