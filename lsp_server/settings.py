"""Editor settings (section `proctor`): which rules to show and how long to wait before linting.

They arrive from initializationOptions, workspace/configuration and didChangeConfiguration in any shape a
client sends; a bad value is dropped (the rest still apply) and reported once, never raised. Plain
dataclass validation: the server answers its first request before any schema library would be imported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

DEFAULT_DEBOUNCE_MS = 50
MAX_DEBOUNCE_MS = 10_000
SECTION = "proctor"
_KEYS = {"select": "select", "ignore": "ignore", "debounceMs": "debounce_ms", "debounce_ms": "debounce_ms"}


@dataclass(frozen=True)
class Settings:
    """`select`/`ignore`: code prefixes (like ruff). `debounce_ms`: push clients only; the longest a lint
    waits for more edits (a cheap lint runs on every edit, see `publisher.Publisher`)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    debounce_ms: int = DEFAULT_DEBOUNCE_MS


class _Invalid(ValueError):
    """A setting value that cannot be used; the message says why."""


def _codes(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    raise _Invalid("expected a list of code prefixes or a comma-separated string")


def _milliseconds(value: object) -> int:
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        number = int(value.strip())
    if number is None:
        raise _Invalid("expected a whole number of milliseconds")
    if not 0 <= number <= MAX_DEBOUNCE_MS:
        raise _Invalid(f"expected 0 to {MAX_DEBOUNCE_MS}")
    return number


_PARSERS: dict[str, Callable[[object], object]] = {
    "select": _codes,
    "ignore": _codes,
    "debounce_ms": _milliseconds,
}


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
    values = asdict(base)
    problems: list[str] = []
    for key, value in raw.items():
        name = _KEYS.get(key)
        if name is None:
            continue  # other extensions' keys in the same section (interpreter, trace, ...)
        try:
            values[name] = _PARSERS[name](value)
        except _Invalid as exc:
            problems.append(f"`{SECTION}.{key}`: {exc} (found {value!r}); using {values[name]!r}")
    return replace(base, **values), problems
