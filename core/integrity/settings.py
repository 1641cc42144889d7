"""The config values the integrity checks read, as a protocol, so `proctor guard` needs no pydantic.

`core.config.Config` satisfies `GuardConfig`. Importing pydantic costs more than the whole guard (SPEC §11:
`proctor guard` as a process ≤ 250 ms), so a baseline without a config file uses `DEFAULTS`, and a config
file that pydantic already accepted (same bytes, same `core/config.py`) is read back from `ValidatedConfigs`
in the repository's git dir. A test keeps `DEFAULTS` equal to `Config()`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

CONFIG_FILE = "proctor.toml"  # = core.config.CONFIG_FILE
PYPROJECT_FILE = "pyproject.toml"  # = core.config.PYPROJECT_FILE


class GuardConfig(Protocol):
    """What fingerprinting, the guard and the overlay read from a workspace's config (SPEC §2, §4)."""

    @property
    def evaluation_dir(self) -> str: ...
    @property
    def data_dir(self) -> str: ...
    @property
    def brief(self) -> str: ...
    @property
    def command(self) -> str: ...
    @property
    def protected_paths(self) -> Sequence[str]: ...


@dataclass(frozen=True)
class GuardSettings:
    """Plain `GuardConfig` values; the defaults are `Config()`'s (a workspace without proctor.toml)."""

    evaluation_dir: str = "kapso_evaluation"
    data_dir: str = "kapso_datasets"
    brief: str = "brief.md"
    command: str = "python kapso_evaluation/evaluate.py"
    protected_paths: tuple[str, ...] = ()

    @classmethod
    def of(cls, config: GuardConfig) -> GuardSettings:
        return cls(
            config.evaluation_dir,
            config.data_dir,
            config.brief,
            config.command,
            tuple(config.protected_paths),
        )


DEFAULTS = GuardSettings()


def _schema_key() -> str:
    """Changes whenever the validation rules can: a digest of core/config.py's source."""
    import importlib.util

    spec = importlib.util.find_spec("core.config")
    origin = spec.origin if spec is not None else None
    try:
        return hashlib.sha256(Path(origin or "").read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


class ValidatedConfigs:
    """Guard settings of config blobs pydantic accepted, by blob id (content), in `<git dir>/proctor/`.

    Only successes are stored and the key includes the validator's own source, so a hit is exactly what
    validating the same bytes again would give; anything else (a new blob, a failure) goes to pydantic.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.schema = _schema_key() if path is not None else ""
        self._data: dict[str, object] | None = None

    def _load(self) -> dict[str, object]:
        if self._data is None:
            self._data = {}
            if self.path is not None:
                with contextlib.suppress(OSError, ValueError):
                    loaded = json.loads(self.path.read_text("utf-8"))
                    if isinstance(loaded, dict):
                        self._data = loaded
        return self._data

    def get(self, blob: str, name: str) -> GuardSettings | None:
        if not self.schema:
            return None
        found = self._load().get(f"{self.schema}:{name}:{blob}")
        if not isinstance(found, dict):
            return None
        try:
            settings = GuardSettings(**{**found, "protected_paths": tuple(found["protected_paths"])})
        except (TypeError, KeyError):
            return None
        fields = (settings.evaluation_dir, settings.data_dir, settings.brief, settings.command)
        if not all(isinstance(v, str) for v in (*fields, *settings.protected_paths)):
            return None
        return settings

    def put(self, blob: str, name: str, config: GuardConfig) -> None:
        if self.path is None or not self.schema:
            return
        from core.atomic import atomic_write_json

        data = self._load()
        data[f"{self.schema}:{name}:{blob}"] = {
            **asdict(GuardSettings.of(config)),
            "protected_paths": list(config.protected_paths),
        }
        with contextlib.suppress(OSError):
            atomic_write_json(self.path, data)
