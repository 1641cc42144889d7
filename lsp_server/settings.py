"""Editor settings (section `proctor`): which rules to show and how long to wait before linting.

They arrive from initializationOptions, workspace/configuration and didChangeConfiguration in any shape a
client sends; a bad value is dropped (the rest still apply) and reported once, never raised.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

DEFAULT_DEBOUNCE_MS = 50
SECTION = "proctor"
_KEYS = {"select": "select", "ignore": "ignore", "debounceMs": "debounce_ms", "debounce_ms": "debounce_ms"}


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    select: tuple[str, ...] = Field((), description="Only show codes with these prefixes (like ruff).")
    ignore: tuple[str, ...] = Field((), description="Hide codes with these prefixes.")
    debounce_ms: int = Field(
        DEFAULT_DEBOUNCE_MS,
        ge=0,
        le=10_000,
        alias="debounceMs",
        description="Push clients: edits within this many ms of the last lint are coalesced into one.",
    )

    @field_validator("select", "ignore", mode="before")
    @classmethod
    def _codes(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return tuple(v.strip() for v in value if v.strip())
        return value


def parse_settings(raw: object, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Settings from a client payload (`{"proctor": {...}}` or the section itself) over `base`.

    Returns the settings and one line per rejected value, so the caller can say what it ignored.
    """
    base = base or Settings()
    if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
        raw = raw[SECTION]
    if raw is None or raw == {}:
        return base, []
    if not isinstance(raw, dict):
        return base, [f"settings must be an object, got {type(raw).__name__}"]
    values = base.model_dump()
    problems: list[str] = []
    for key, value in raw.items():
        name = _KEYS.get(key)
        if name is None:
            continue  # other extensions' keys in the same section (interpreter, trace, ...)
        try:
            values[name] = getattr(Settings.model_validate({name: value}), name)
        except ValidationError as exc:
            reason = exc.errors()[0]["msg"]
            problems.append(f"`{SECTION}.{key}`: {reason} (found {value!r}); using {values[name]!r}")
    return Settings.model_validate(values), problems
