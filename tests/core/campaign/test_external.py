"""The external iteration evaluator contract (seed 002 + Kapso 0.7.10's baseline_metrics/metric_directions)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from core.campaign.external import (
    CandidateNode,
    IterationEvaluationContext,
    IterationEvaluationError,
    IterationEvaluationResult,
    IterationEvaluationValidationError,
    callable_identity,
    load_evaluator,
    normalize_failure_policy,
    normalize_result,
    run_external,
)
from core.errors import CampaignError, ProctorError


def _context() -> IterationEvaluationContext:
    node = CandidateNode(1, "candidate/a", "abc", "main", "scored", 0.5, ())
    return IterationEvaluationContext(1, "goal", Path("/nonexistent"), "candidate/a", "main", node)


def test_context_and_result_are_frozen() -> None:
    context = _context()
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.iteration = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.node.score = 1.0  # type: ignore[misc]
    result = IterationEvaluationResult(metrics={"a": 1.0})
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.primary_metric = "a"  # type: ignore[misc]
    assert result.metadata == {} and result.baseline_metrics == {} and result.metric_directions == {}


def test_a_valid_result_is_normalized_and_detached() -> None:
    metadata: dict[str, Any] = {"suite": {"version": 3}, "tags": ["x"]}
    outcome = normalize_result(IterationEvaluationResult({"acc": 1, "lat": 2.5}, "acc", metadata))
    assert outcome.metrics == {"acc": 1.0, "lat": 2.5}
    assert isinstance(outcome.metrics["acc"], float)
    assert outcome.primary_metric == "acc" and outcome.error == ""
    metadata["suite"]["version"] = 4
    assert outcome.metadata == {"suite": {"version": 3}, "tags": ["x"]}


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (IterationEvaluationResult({"": 1.0}), "non-empty"),
        (IterationEvaluationResult({"  ": 1.0}), "non-empty"),
        (IterationEvaluationResult({1: 1.0}), "non-empty"),  # type: ignore[dict-item]
        (IterationEvaluationResult({"a": True}), "finite number"),
        (IterationEvaluationResult({"a": "0.5"}), "finite number"),  # type: ignore[dict-item]
        (IterationEvaluationResult({"a": math.nan}), "finite number"),
        (IterationEvaluationResult({"a": math.inf}), "finite number"),
        (IterationEvaluationResult({"a": None}), "finite number"),  # type: ignore[dict-item]
        (IterationEvaluationResult({"a": 1.0}, primary_metric="b"), "primary_metric"),
        (IterationEvaluationResult({"a": 1.0}, metadata={1: "x"}), "keys must be strings"),  # type: ignore[dict-item]
        (IterationEvaluationResult({"a": 1.0}, metadata={"x": {2: 1}}), "keys must be strings"),
        (IterationEvaluationResult({"a": 1.0}, metadata={"x": object()}), "JSON compatible"),
        (IterationEvaluationResult({"a": 1.0}, metadata={"x": math.nan}), "JSON compatible"),
        (IterationEvaluationResult({"a": 1.0}, baseline_metrics={"b": 1.0}), "baseline_metrics must name"),
        (IterationEvaluationResult({"a": 1.0}, baseline_metrics={"a": math.nan}), "finite number"),
        (IterationEvaluationResult({"a": 1.0}, metric_directions={"a": "up"}), "maximize or minimize"),
        (IterationEvaluationResult({"a": 1.0}, metric_directions={"b": "maximize"}), "maximize or minimize"),
        (IterationEvaluationResult({"a": 1.0}, metadata={"baseline_comparison": {}}), "reserved"),
        ({"a": 1.0}, "must return IterationEvaluationResult"),
        (IterationEvaluationResult([("a", 1.0)]), "must be a mapping"),  # type: ignore[arg-type]
    ],
)
def test_every_validation_rule(result: Any, message: str) -> None:
    with pytest.raises(IterationEvaluationValidationError, match=message):
        normalize_result(result)


def test_baseline_metrics_produce_a_comparison_with_directions() -> None:
    outcome = normalize_result(
        IterationEvaluationResult(
            {"acc": 0.9, "lat": 10.0, "new": 1.0},
            baseline_metrics={"acc": 0.8, "lat": 12.0},
            metric_directions={"acc": "maximize", "lat": "minimize"},
        )
    )
    comparison = outcome.metadata["baseline_comparison"]
    assert comparison["metrics"]["acc"]["verdict"] == "improved"
    assert comparison["metrics"]["lat"]["verdict"] == "improved"
    assert comparison["metrics"]["acc"]["delta"] == pytest.approx(0.1)
    assert comparison["missing_baseline"] == ["new"]
    assert outcome.baseline_metrics == {"acc": 0.8, "lat": 12.0}
    assert outcome.metric_directions == {"acc": "maximize", "lat": "minimize"}
    # An already-normalized result (carrying exactly the derived report) validates again unchanged.
    again = IterationEvaluationResult(
        outcome.metrics, None, outcome.metadata, outcome.baseline_metrics, outcome.metric_directions
    )
    assert normalize_result(again).metadata == outcome.metadata


def _boom(_context: IterationEvaluationContext) -> IterationEvaluationResult:
    raise RuntimeError("suite offline")


def test_policy_record_keeps_the_error_and_empty_metrics() -> None:
    outcome = run_external(_boom, _context(), "record")
    assert outcome.metrics == {} and outcome.primary_metric is None
    assert outcome.error == "RuntimeError: suite offline"


def test_policy_raise_raises_iteration_evaluation_error_naming_the_candidate() -> None:
    with pytest.raises(IterationEvaluationError, match="candidate 1 at candidate/a: suite offline") as info:
        run_external(_boom, _context(), "raise")
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, ProctorError)


def test_invalid_results_follow_the_policy_too() -> None:
    def bad(_context: IterationEvaluationContext) -> IterationEvaluationResult:
        return IterationEvaluationResult({"a": math.nan})

    assert run_external(bad, _context(), "record").error.startswith("IterationEvaluationValidationError:")
    with pytest.raises(IterationEvaluationError):
        run_external(bad, _context(), "raise")


@pytest.mark.parametrize("policy", ["record", " RAISE ", "Record"])
def test_policy_names_are_normalized(policy: str) -> None:
    assert normalize_failure_policy(policy) in ("record", "raise")


@pytest.mark.parametrize("policy", ["", "ignore", None, 1])
def test_unknown_policies_are_refused(policy: object) -> None:
    with pytest.raises(CampaignError, match="'record' or 'raise'"):
        normalize_failure_policy(policy)


def test_callable_identity_and_loading() -> None:
    evaluator = load_evaluator("tests.core.campaign.test_external:_boom")
    assert evaluator is _boom
    assert callable_identity(_boom) == "tests.core.campaign.test_external._boom"
    for spec, message in [
        ("no_colon", "module:function"),
        ("not_a_module_xyz:f", "cannot import"),
        ("tests.core.campaign.test_external:missing", "no attribute"),
        ("tests.core.campaign.test_external:math", "not callable"),
    ]:
        with pytest.raises(CampaignError, match=message):
            load_evaluator(spec)
