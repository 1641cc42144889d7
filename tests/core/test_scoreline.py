"""The one score-line parser (SPEC §3.1): round trips, refusals and the last-line rule."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.scoreline import parse_score_line, parse_stdout

names = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_.\-]{0,20}\Z")
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@given(name=names, value=finite)
def test_round_trip_of_any_finite_value(name: str, value: float) -> None:
    score = parse_score_line(f"{name}: {value!r}")
    assert score is not None
    assert score.name == name
    assert score.value == value


@given(name=names, value=st.floats(min_value=0, max_value=100, allow_nan=False))
def test_percent_divides_by_100(name: str, value: float) -> None:
    score = parse_score_line(f"{name}: {value!r}%")
    assert score is not None
    assert math.isclose(score.value, value / 100.0)


@pytest.mark.parametrize(
    "line",
    [
        "auc: nan",
        "auc: NaN",
        "auc: inf",
        "auc: -inf",
        "auc: Infinity",
        "auc: 1e999",
        "auc: 0.8 extra",
        "auc 0.8",
        "auc: ",
        "9auc: 0.5",
        "auc: 0x10",
        "auc: 1,5",
        "the auc is 0.8",
        "KAPSO_EVAL_MANIFEST {not json}",
        'KAPSO_EVAL_MANIFEST {"score": NaN}',
        'KAPSO_EVAL_MANIFEST {"score": "0.5"}',
        'KAPSO_EVAL_MANIFEST {"score": true}',
        'KAPSO_EVAL_MANIFEST ["score", 1]',
    ],
)
def test_refusals(line: str) -> None:
    assert parse_score_line(line) is None


@given(junk=st.text(min_size=1).filter(lambda s: s.strip() != "" and "\n" not in s and "\r" not in s))
def test_junk_after_the_metric_means_no_score(junk: str) -> None:
    out = f"auc: 0.84\n{junk}\n"
    parsed = parse_stdout(out)
    last = parse_score_line(junk.splitlines()[-1]) if junk.splitlines() else None
    if last is None:
        assert parsed.score is None
        assert "last stdout line" in parsed.reason
    else:
        assert parsed.score == last


def test_only_the_last_nonempty_line_counts() -> None:
    assert parse_stdout("loading\nauc: 0.8412\n\n  \n").score is not None
    parsed = parse_stdout("auc: 0.8412\ndone\n")
    assert parsed.score is None
    assert "'done'" in parsed.reason
    assert parse_stdout("").reason == "the evaluator printed nothing on stdout"


@given(value=finite)
def test_kapso_manifest_line(value: float) -> None:
    line = "KAPSO_EVAL_MANIFEST " + json.dumps({"score": value, "metric": "auc"})
    score = parse_score_line(line)
    assert score is not None
    assert score.value == value
    assert score.name == "auc"


def test_spaces_around_and_signs() -> None:
    score = parse_score_line("   val-loss.v2 :  -1.5E-3  ")
    assert score is not None
    assert (score.name, score.value) == ("val-loss.v2", -0.0015)
    assert parse_score_line("acc: .5").value == 0.5  # type: ignore[union-attr]
    assert parse_score_line("acc: +5.").value == 5.0  # type: ignore[union-attr]
