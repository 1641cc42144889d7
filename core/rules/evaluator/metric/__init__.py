"""The evaluator's metric print (SPEC §3.1), one module per concern.

`rendering` (what a print-like call writes: literal text and holes), `shape` (a rendered line split into a
metric name and value), `discovery` (which print on the execution-order walk is the metric line, and the
walk's cache across lints). The rules EV002-EV006 and the brief rule BR008 read the answer through here.
"""

from __future__ import annotations

from core.rules.evaluator.metric.discovery import (
    MetricInfo,
    MetricPrint,
    clear_flows,
    expected_metric,
    flow_of,
    metric_of,
    metric_rank,
    printed_metric,
)
from core.rules.evaluator.metric.rendering import STDOUT_WRITERS, render_output, stream_name

__all__ = [
    "STDOUT_WRITERS",
    "MetricInfo",
    "MetricPrint",
    "clear_flows",
    "expected_metric",
    "flow_of",
    "metric_of",
    "metric_rank",
    "printed_metric",
    "render_output",
    "stream_name",
]
