"""External iteration evaluation (SPEC §5.5, Kapso's "External Iteration Evaluation" contract).

A caller-owned callable runs once for every new candidate in a temporary copy of exactly that commit and
returns observational metrics. They are stored with the candidate (state, history, scoreboard) and never change
ranking, the winner or anything a generator sees. Validation mirrors Kapso 0.7.10 so records written by either
tool mean the same thing.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from core.errors import CampaignError, IterationEvaluationError, IterationEvaluationValidationError

FailurePolicy = Literal["record", "raise"]
DIRECTIONS = frozenset({"maximize", "minimize"})
RESERVED_METADATA_KEY = "baseline_comparison"


@dataclass(frozen=True)
class CandidateNode:
    """A read-only snapshot of the candidate as the campaign knows it when the callback runs."""

    node_id: int
    ref: str
    commit: str
    parent_ref: str
    status: str
    score: float | None
    finding_codes: tuple[str, ...] = ()


@dataclass(frozen=True)
class IterationEvaluationContext:
    """What the callback receives. `workspace_dir` is removed after the callback returns."""

    iteration: int
    goal: str
    workspace_dir: Path
    git_ref: str
    parent_ref: str
    node: CandidateNode


@dataclass(frozen=True)
class IterationEvaluationResult:
    """Observational metrics; `primary_metric` only describes the report, it never selects anything."""

    metrics: Mapping[str, float]
    primary_metric: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    baseline_metrics: Mapping[str, float] = field(default_factory=dict)
    metric_directions: Mapping[str, str] = field(default_factory=dict)


IterationEvaluator = Callable[[IterationEvaluationContext], IterationEvaluationResult]


@dataclass(frozen=True)
class ExternalOutcome:
    """What is persisted for one candidate: normalized metrics, or the error under policy `record`."""

    metrics: dict[str, float]
    primary_metric: str | None
    metadata: dict[str, Any]
    baseline_metrics: dict[str, float]
    metric_directions: dict[str, str]
    error: str

    def to_json(self) -> dict[str, Any]:
        return {
            "metrics": dict(self.metrics),
            "primary_metric": self.primary_metric,
            "metadata": self.metadata,
            "baseline_metrics": dict(self.baseline_metrics),
            "metric_directions": dict(self.metric_directions),
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExternalOutcome:
        return cls(
            metrics=dict(data.get("metrics") or {}),
            primary_metric=data.get("primary_metric"),
            metadata=dict(data.get("metadata") or {}),
            baseline_metrics=dict(data.get("baseline_metrics") or {}),
            metric_directions=dict(data.get("metric_directions") or {}),
            error=str(data.get("error") or ""),
        )

    @classmethod
    def failed(cls, exc: BaseException) -> ExternalOutcome:
        return cls({}, None, {}, {}, {}, f"{type(exc).__name__}: {exc}")


def normalize_failure_policy(policy: object) -> FailurePolicy:
    if isinstance(policy, str):
        normalized = policy.strip().lower()
        if normalized == "record":
            return "record"
        if normalized == "raise":
            return "raise"
    raise CampaignError(f"iteration_evaluator_failure_policy must be 'record' or 'raise', found {policy!r}")


def normalize_metrics(
    metrics: object, primary_metric: object, *, what: str = "metrics"
) -> tuple[dict[str, float], str | None]:
    """Finite numeric metrics with non-empty string names; `primary_metric` must name one of them."""
    if not isinstance(metrics, Mapping):
        raise IterationEvaluationValidationError(f"iteration evaluator {what} must be a mapping")
    normalized: dict[str, float] = {}
    for name, value in metrics.items():
        if not isinstance(name, str) or not name.strip():
            raise IterationEvaluationValidationError(
                f"iteration evaluator {what} names must be non-empty strings, found {name!r}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
            raise IterationEvaluationValidationError(
                f"iteration evaluator metric {name!r} must be a finite number, found {value!r}"
            )
        normalized[name] = float(value)
    if primary_metric is not None and (
        not isinstance(primary_metric, str) or primary_metric not in normalized
    ):
        raise IterationEvaluationValidationError(
            f"iteration evaluator primary_metric must name a returned metric, found {primary_metric!r}"
        )
    return normalized, primary_metric


def normalize_metadata(metadata: object) -> dict[str, Any]:
    """JSON-compatible metadata with string keys, detached from the caller's objects."""
    if not isinstance(metadata, Mapping):
        raise IterationEvaluationValidationError("iteration evaluator metadata must be a mapping")
    _check_string_keys(metadata)
    try:
        encoded = json.dumps(dict(metadata), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise IterationEvaluationValidationError(
            f"iteration evaluator metadata must be JSON compatible: {exc}"
        ) from exc
    decoded: dict[str, Any] = json.loads(encoded)
    return decoded


def _check_string_keys(value: object) -> None:
    if isinstance(value, Mapping):
        for key, nested in value.items():
            if not isinstance(key, str):
                raise IterationEvaluationValidationError(
                    f"iteration evaluator metadata keys must be strings, found {key!r}"
                )
            _check_string_keys(nested)
    elif isinstance(value, list | tuple):
        for nested in value:
            _check_string_keys(nested)


def compare_metrics(
    candidate: Mapping[str, float], baseline: Mapping[str, float], directions: Mapping[str, str]
) -> dict[str, Any]:
    """Candidate minus baseline per shared metric; a metric without a direction stays `unclassified`."""
    comparisons: dict[str, Any] = {}
    for name, value in candidate.items():
        if name not in baseline:
            continue
        delta = value - baseline[name]
        direction = directions.get(name)
        verdict = "unclassified"
        if direction is not None:
            improvement = delta if direction == "maximize" else -delta
            verdict = "improved" if improvement > 0 else "regressed" if improvement < 0 else "unchanged"
        comparisons[name] = {
            "baseline": baseline[name],
            "candidate": value,
            "delta": delta,
            "direction": direction,
            "verdict": verdict,
        }
    return {"metrics": comparisons, "missing_baseline": sorted(set(candidate) - set(baseline))}


def normalize_result(result: object) -> ExternalOutcome:
    """Validate a callback's return value; raises IterationEvaluationValidationError naming the problem."""
    if not isinstance(result, IterationEvaluationResult):
        raise IterationEvaluationValidationError(
            f"iteration evaluator must return IterationEvaluationResult, returned {type(result).__name__}"
        )
    metrics, primary = normalize_metrics(result.metrics, result.primary_metric)
    metadata = normalize_metadata(result.metadata)
    baseline, _ = normalize_metrics(result.baseline_metrics, None, what="baseline_metrics")
    unknown = sorted(set(baseline) - set(metrics))
    if unknown:
        raise IterationEvaluationValidationError(
            "baseline_metrics must name returned metrics: " + ", ".join(unknown)
        )
    directions = result.metric_directions
    if not isinstance(directions, Mapping):
        raise IterationEvaluationValidationError("metric_directions must be a mapping")
    for name, direction in directions.items():
        if name not in metrics or not isinstance(direction, str) or direction not in DIRECTIONS:
            raise IterationEvaluationValidationError(
                f"metric_directions must map returned metrics to maximize or minimize, found {name!r}: {direction!r}"
            )
    comparison = compare_metrics(metrics, baseline, directions) if baseline else None
    # The comparison is derived, so the caller may not supply it (a stale or forged report would mislead).
    if RESERVED_METADATA_KEY in metadata and (
        comparison is None or metadata[RESERVED_METADATA_KEY] != comparison
    ):
        raise IterationEvaluationValidationError(
            f"{RESERVED_METADATA_KEY} is reserved for the report derived from baseline_metrics"
        )
    if comparison is not None:
        metadata[RESERVED_METADATA_KEY] = comparison
        metadata = normalize_metadata(metadata)
    return ExternalOutcome(metrics, primary, metadata, baseline, dict(directions), "")


def callable_identity(callback: object) -> str:
    """`module.qualname` of the callback: what the resume fingerprint records (as Kapso does)."""
    module = getattr(callback, "__module__", None) or type(callback).__module__
    qualname = getattr(callback, "__qualname__", None) or type(callback).__qualname__
    return f"{module}.{qualname}"


def load_evaluator(spec: str) -> IterationEvaluator:
    """Import `module:function` (the CLI's `--iteration-evaluator` and the config key)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name.strip() or not attr.strip():
        raise CampaignError(f"--iteration-evaluator must be `module:function`, found {spec!r}")
    try:
        module = importlib.import_module(module_name.strip())
    except ImportError as exc:
        raise CampaignError(f"cannot import iteration evaluator module {module_name!r}: {exc}") from None
    target: Any = module
    for part in attr.strip().split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise CampaignError(
                f"iteration evaluator {spec!r}: {module_name} has no attribute {attr!r}"
            ) from None
    if not callable(target):
        raise CampaignError(f"iteration evaluator {spec!r} is not callable")
    evaluator: IterationEvaluator = target
    return evaluator


def run_external(
    evaluator: IterationEvaluator, context: IterationEvaluationContext, policy: FailurePolicy
) -> ExternalOutcome:
    """Call the evaluator once. `record` keeps going with the error stored; `raise` stops the campaign."""
    try:
        return normalize_result(evaluator(context))
    except Exception as exc:
        if policy == "raise":
            detail = exc if not isinstance(exc, IterationEvaluationError) else str(exc)
            raise IterationEvaluationError(
                f"iteration evaluator failed for candidate {context.node.node_id} at {context.git_ref}: {detail}"
            ) from exc
        return ExternalOutcome.failed(exc)
