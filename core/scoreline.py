"""The one score-line parser (SPEC §3.1), used by verify, campaigns, the editor and the GitHub App.

The metric is the *last non-empty* stdout line, `name: value` (a trailing `%` divides by 100), or Kapso's
`KAPSO_EVAL_MANIFEST {json}` with a finite `score`. Anything else means the run produced no score.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from core.patterns import LazyPattern

SCORE_LINE = LazyPattern(
    r"^\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*:\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(%?)\s*$"
)
METRIC_NAME = LazyPattern(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
MANIFEST_PREFIX = "KAPSO_EVAL_MANIFEST"


@dataclass(frozen=True)
class Score:
    name: str
    value: float
    line: str


@dataclass(frozen=True)
class ScoreParse:
    """Either a score, or the reason there is none (for failure reports)."""

    score: Score | None
    reason: str


def parse_score_line(line: str) -> Score | None:
    """Parse one line; None when it is not a valid metric line (NaN and infinities are refused)."""
    if line.startswith(MANIFEST_PREFIX):
        return _parse_manifest(line)
    match = SCORE_LINE.match(line)
    if match is None:
        return None
    name, number, percent = match.groups()
    value = float(number)
    if percent:
        value /= 100.0
    if not math.isfinite(value):
        return None
    return Score(name, value, line)


def _parse_manifest(line: str) -> Score | None:
    payload = line[len(MANIFEST_PREFIX) :]
    if payload and not payload[0].isspace():
        return None
    try:
        data = json.loads(payload, parse_constant=lambda _c: None)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    score = data.get("score")
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        return None
    name = data.get("metric") or data.get("metric_name") or "score"
    if not isinstance(name, str) or not METRIC_NAME.match(name):
        name = "score"
    return Score(name, float(score), line)


def last_nonempty_line(stdout: str) -> str | None:
    for line in reversed(stdout.splitlines()):
        if line.strip():
            return line
    return None


def parse_stdout(stdout: str) -> ScoreParse:
    """The score of a whole run's stdout: only the last non-empty line counts."""
    last = last_nonempty_line(stdout)
    if last is None:
        return ScoreParse(None, "the evaluator printed nothing on stdout")
    score = parse_score_line(last)
    if score is None:
        shown = last if len(last) <= 120 else last[:117] + "..."
        return ScoreParse(None, f"the last stdout line is not a metric line `name: value`: {shown!r}")
    return ScoreParse(score, "")
