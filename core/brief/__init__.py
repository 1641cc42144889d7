"""The brief parser (SPEC §3.2): the Goal, the `Measured by` protocol and the optional Rules/Data sections.

A brief is Markdown written by people, so the parser is liberal: "Measured by AUC (higher is better) on
kapso_datasets/churn.csv, an 80/20 stratified split with seed 42, printed as `auc: <value>`." and a
`Measured by:` line followed by a `- metric: auc` list read the same. Every field keeps its source range
(zero-based lines, code-point columns) so the rules (BR001–BR010), the editor's hover, `proctor init` and
campaigns (default metric and direction) share one reading of the brief.

`model` holds what a brief is, `markdown` its structure (fences, comments, sections, the Goal, the protocol's
lines), `vocabulary` the words fields are written with, `fields` finds them, `metric_names` compares metric
names, and `parse` is the entry point.
"""

from __future__ import annotations

from core.brief.fields import placeholder_for, workspace_paths
from core.brief.markdown import fenced_lines, visible_lines
from core.brief.metric_names import find_metric_names, metric_key, same_metric
from core.brief.model import Brief, Field, Goal, Protocol, Section
from core.brief.parse import INVISIBLE, parse_brief, protocol_at
from core.lines import split_lines

__all__ = [
    "INVISIBLE",
    "Brief",
    "Field",
    "Goal",
    "Protocol",
    "Section",
    "fenced_lines",
    "find_metric_names",
    "metric_key",
    "parse_brief",
    "placeholder_for",
    "protocol_at",
    "same_metric",
    "split_lines",
    "visible_lines",
    "workspace_paths",
]
