"""The evaluation registry (SPEC §4.4), in Kapso 0.7.10's format: `.kapso/evaluation_registry.json`.

A JSON list, one object per evaluator version, with exactly Kapso's `EvaluatorVersion` fields (`evaluator_id`,
`version`, `provenance`, `parent_evaluator`, `fidelity_support`, `timing` = Kapso's `TimingModel`,
`created_at_iteration`, `reason`, `data_manifest`), validated as Kapso validates them, appended under a lock
and written atomically (temp file, fsync, `os.replace`, sorted keys, no NaN) so a kill -9 leaves the old
file or the new one. Every score carries an `EvaluatorRef`; scores under different refs never meet.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.atomic import atomic_write_json
from core.errors import RegistryError
from core.treewalk import walk

REGISTRY_PATH = Path(".kapso") / "evaluation_registry.json"
PROVENANCES = ("provided", "maintainer_built", "derived_fast")
FIELDS = (
    "created_at_iteration",
    "data_manifest",
    "evaluator_id",
    "fidelity_support",
    "parent_evaluator",
    "provenance",
    "reason",
    "timing",
    "version",
)


@dataclass(frozen=True)
class EvaluatorRef:
    """The identity every score carries: scores compare only under an equal ref."""

    version: int
    evaluator_id: str
    provenance: str

    def short(self) -> str:
        return f"v{self.version} ({self.evaluator_id[:12]}, {self.provenance})"


def _finite(name: str, value: Any, where: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise RegistryError(f"{where}: timing.{name} must be a finite non-negative number, found {value!r}")
    return float(value)


def _field(
    data: Mapping[str, Any],
    key: str,
    ok: Callable[[Any], bool],
    expected: str,
    where: str,
    default: Any = None,
) -> Any:
    """`data[key]` (or `default`) when `ok` accepts it; else one line naming the field and what it must be."""
    value = data.get(key, default)
    if not ok(value):
        raise RegistryError(f"{where}: `{key}` must be {expected}, found {value!r}")
    return value


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _non_empty(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


@dataclass(frozen=True)
class Timing:
    """Kapso's TimingModel: per-item rate plus fixed startup, and the measured samples."""

    per_item_seconds: float = 0.0
    startup_seconds: float = 0.0
    total_items: int = 1
    measured_samples: list[dict[str, float]] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: Any, where: str) -> Timing:
        if not isinstance(data, Mapping):
            raise RegistryError(f"{where}: `timing` must be an object, found {data!r}")
        total = data.get("total_items", 0)
        if isinstance(total, bool) or not isinstance(total, int) or total <= 0:
            raise RegistryError(f"{where}: timing.total_items must be a positive integer, found {total!r}")
        samples = data.get("measured_samples", [])
        if not isinstance(samples, list) or not all(isinstance(s, Mapping) for s in samples):
            raise RegistryError(f"{where}: timing.measured_samples must be a list of objects")
        return cls(
            per_item_seconds=_finite("per_item_seconds", data.get("per_item_seconds", 0.0), where),
            startup_seconds=_finite("startup_seconds", data.get("startup_seconds", 0.0), where),
            total_items=total,
            measured_samples=[dict(s) for s in samples],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "per_item_seconds": self.per_item_seconds,
            "startup_seconds": self.startup_seconds,
            "total_items": self.total_items,
            "measured_samples": [dict(s) for s in self.measured_samples],
        }


@dataclass(frozen=True)
class RegistryEntry:
    """One registered evaluator version (Kapso's EvaluatorVersion)."""

    evaluator_id: str
    version: int
    provenance: str
    parent_evaluator: str | None
    fidelity_support: dict[str, Any]
    timing: Timing
    created_at_iteration: int
    reason: str
    data_manifest: dict[str, str] = field(default_factory=dict)

    @property
    def ref(self) -> EvaluatorRef:
        return EvaluatorRef(self.version, self.evaluator_id, self.provenance)

    def to_json(self) -> dict[str, Any]:
        return {
            "evaluator_id": self.evaluator_id,
            "version": self.version,
            "provenance": self.provenance,
            "parent_evaluator": self.parent_evaluator,
            "fidelity_support": dict(self.fidelity_support),
            "timing": self.timing.to_json(),
            "created_at_iteration": self.created_at_iteration,
            "reason": self.reason,
            "data_manifest": dict(self.data_manifest),
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> RegistryEntry:
        if not isinstance(data, Mapping):
            raise RegistryError(f"{where}: each version must be an object, found {type(data).__name__}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise RegistryError(f"{where}: unknown field {unknown[0]!r}")
        evaluator_id = _field(data, "evaluator_id", _non_empty, "a non-empty string", where)
        version = _field(data, "version", lambda v: _integer(v) and v >= 1, "a positive integer", where)
        provenance = _field(
            data, "provenance", lambda v: v in PROVENANCES, f"one of {', '.join(PROVENANCES)}", where
        )
        parent = _field(
            data, "parent_evaluator", lambda v: v is None or isinstance(v, str), "a string or null", where
        )
        fidelity = _field(data, "fidelity_support", lambda v: isinstance(v, Mapping), "an object", where, {})
        iteration = _field(data, "created_at_iteration", _integer, "an integer", where, 0)
        reason = _field(
            data, "reason", lambda v: _non_empty(v) and bool(v.strip()), "a non-empty string", where
        )
        manifest = data.get("data_manifest", {})
        if not isinstance(manifest, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in manifest.items()
        ):
            raise RegistryError(f"{where}: `data_manifest` must map file paths to digests")
        return cls(
            evaluator_id=evaluator_id,
            version=version,
            provenance=str(provenance),
            parent_evaluator=parent,
            fidelity_support=dict(fidelity),
            timing=Timing.from_json(data.get("timing", {}), where),
            created_at_iteration=iteration,
            reason=reason,
            data_manifest=dict(manifest),
        )


def registry_path(workspace: Path) -> Path:
    return Path(workspace) / REGISTRY_PATH


def load_registry(workspace: Path) -> list[RegistryEntry]:
    """Every registered version, validated (consecutive versions from 1, unique ids); [] when none."""
    path = registry_path(workspace)
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise RegistryError(f"{path}: cannot read the registry: {exc}", path=path) from None
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise RegistryError(f"{path}: not valid JSON ({exc})", path=path) from None
    if not isinstance(raw, list):
        raise RegistryError(
            f"{path}: the registry must be a JSON list, found {type(raw).__name__}", path=path
        )
    try:
        entries = [RegistryEntry.from_json(item, f"{path} [{index}]") for index, item in enumerate(raw)]
    except RegistryError as exc:  # an entry is checked as data; the file it came from is known here
        raise RegistryError(str(exc), path=path) from None
    seen: set[str] = set()
    for index, entry in enumerate(entries, start=1):
        if entry.version != index:
            raise RegistryError(
                f"{path}: versions must run 1, 2, 3...; entry {index} has version {entry.version}", path=path
            )
        if entry.evaluator_id in seen:
            raise RegistryError(f"{path}: evaluator_id {entry.evaluator_id} is registered twice", path=path)
        seen.add(entry.evaluator_id)
    return entries


def head(workspace: Path) -> RegistryEntry | None:
    entries = load_registry(workspace)
    return entries[-1] if entries else None


@contextlib.contextmanager
def _locked(workspace: Path) -> Iterator[None]:
    """Serialise writers (two registers must not both append version N+1)."""
    lock_path = registry_path(workspace).with_name(".evaluation_registry.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def register(
    workspace: Path,
    suite_dir: Path,
    provenance: str,
    reason: str,
    *,
    data_paths: list[str] | None = None,
    fidelity_support: Mapping[str, Any] | None = None,
    timing: Timing | None = None,
    created_at_iteration: int = 0,
    parent_evaluator: str | None = None,
) -> RegistryEntry:
    """Append the suite as a new version; an unchanged suite returns the existing head.

    `data_paths` (workspace-relative files or directories) become `data_manifest`, Kapso's inputs half of the
    evaluation identity; the parent defaults to the current head.
    """
    from core.integrity.manifest import build_manifest, hash_files, manifest_fingerprint

    workspace = Path(workspace)
    if provenance not in PROVENANCES:
        raise RegistryError(f"provenance must be one of {', '.join(PROVENANCES)}, found {provenance!r}")
    if not reason.strip():
        raise RegistryError("a registration needs a reason (--reason)")
    evaluator_id = manifest_fingerprint(build_manifest(Path(suite_dir)))
    data_manifest = _data_manifest(workspace, data_paths or [], hash_files)
    with _locked(workspace):
        _remove_torn_temp_files(workspace)
        entries = load_registry(workspace)
        if entries and entries[-1].evaluator_id == evaluator_id:
            return entries[-1]
        earlier = next((e for e in entries if e.evaluator_id == evaluator_id), None)
        if earlier is not None:
            raise RegistryError(
                f"this suite is already registered as v{earlier.version} ({evaluator_id[:12]}); the head is "
                f"v{entries[-1].version}: a version is never registered twice"
            )
        entry = RegistryEntry(
            evaluator_id=evaluator_id,
            version=len(entries) + 1,
            provenance=provenance,
            parent_evaluator=parent_evaluator
            if parent_evaluator is not None
            else (entries[-1].evaluator_id if entries else None),
            fidelity_support=dict(fidelity_support or {}),
            timing=timing or Timing(),
            created_at_iteration=created_at_iteration,
            reason=reason,
            data_manifest=data_manifest,
        )
        atomic_write_json(registry_path(workspace), [e.to_json() for e in [*entries, entry]])
        return entry


def _remove_torn_temp_files(workspace: Path) -> None:
    """Temp files of writers killed mid-write (the lock is held, so no live writer owns one)."""
    target = registry_path(workspace)
    for stale in target.parent.glob(f".{target.name}.*.tmp"):
        with contextlib.suppress(OSError):
            stale.unlink()


def _data_manifest(workspace: Path, paths: list[str], hasher: Any) -> dict[str, str]:
    """Kapso's build_data_manifest: sha256 of every file under the given paths; symlinks are refused."""
    files: list[str] = []
    for raw in paths:
        target = workspace / raw
        if not os.path.lexists(target):
            continue
        candidates = (
            sorted(Path(d, n) for d, dirs, others in walk(target) for n in dirs + others)
            if target.is_dir() and not target.is_symlink()
            else [target]
        )
        for path in candidates:
            if path.is_symlink():
                raise RegistryError(f"protected data cannot contain symlinks: {path}")
            if path.is_file():
                files.append(path.relative_to(workspace).as_posix())
    digests: list[str] = hasher([workspace / rel for rel in files])
    return dict(zip(files, digests, strict=True))


def require_same_version(a: EvaluatorRef, b: EvaluatorRef) -> None:
    """A score never crosses a version boundary: refuse to compare scores measured under different refs."""
    if a.evaluator_id != b.evaluator_id or a.version != b.version:
        raise RegistryError(
            f"scores measured under evaluator {a.short()} and {b.short()} are not comparable: "
            "a score never crosses a version boundary"
        )
