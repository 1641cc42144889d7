"""Pure pieces of the judge: scales, criteria, balanced rotations, rendered prompts and tolerant parsing."""

from __future__ import annotations

from collections import Counter

import pytest

import core.judge
from core.errors import JudgeError
from core.judge.parse import AnswerError, parse_pairwise, parse_rewrites, parse_verdict
from core.judge.prompts import SCALES, parse_criteria, parse_scale, rotations, single_messages

CRITERIA = ("accuracy", "completeness", "conciseness")


def test_public_api_is_sorted() -> None:
    assert core.judge.__all__ == sorted(core.judge.__all__)
    for name in core.judge.__all__:
        assert hasattr(core.judge, name)


@pytest.mark.parametrize(
    ("scale", "value", "unit"),
    [
        ("0-1", 0.7, 0.7),
        ("1-5", 1, 0.0),
        ("1-5", 4, 0.75),
        ("1-5", 5, 1.0),
        ("0-10", 7, 0.7),
        ("0-10", 0, 0.0),
    ],
)
def test_scales_map_to_unit_interval(scale: str, value: float, unit: float) -> None:
    assert SCALES[scale].to_unit(value) == pytest.approx(unit)
    assert SCALES[scale].from_unit(unit) == pytest.approx(value)


def test_unknown_scale_and_bad_criteria_are_errors() -> None:
    with pytest.raises(JudgeError, match="unknown judge scale '1-10'"):
        parse_scale("1-10")
    with pytest.raises(JudgeError, match="name no criterion"):
        parse_criteria(" , ")
    with pytest.raises(JudgeError, match="repeat accuracy"):
        parse_criteria("accuracy, Accuracy")
    assert parse_criteria(" accuracy ,completeness,, conciseness ") == CRITERIA


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("has_reference", [False, True])
def test_rotations_are_distinct_and_balanced(k: int, has_reference: bool) -> None:
    distinct = k * (2 if has_reference else 1)
    plan = rotations(k, has_reference, distinct)
    assert len({r.id for r in plan}) == distinct
    # Each criterion leads equally often, and each order of reference/candidate is used equally often.
    assert Counter(r.shift for r in plan) == dict.fromkeys(range(k), distinct // k)
    if has_reference:
        assert Counter(r.reference_first for r in plan) == {True: k, False: k}
    # Past the distinct orders, a pass number still keeps every sample's prompt different.
    longer = rotations(k, has_reference, distinct * 2 + 1)
    assert len({r.id for r in longer}) == len(longer)


def test_no_two_samples_render_the_same_prompt() -> None:
    scale = parse_scale("1-5")
    for reference in (None, "the reference"):
        for criteria in (("accuracy",), CRITERIA):
            plan = rotations(len(criteria), reference is not None, 5)
            prompts = [
                single_messages(
                    input_text="q",
                    output="a",
                    reference=reference,
                    criteria=criteria,
                    scale=scale,
                    rotation=r,
                )[1]["content"]
                for r in plan
            ]
            assert len(set(prompts)) == len(prompts)


def test_prompt_lists_criteria_in_rotated_order_and_swaps_reference() -> None:
    scale = parse_scale("0-1")
    first, second = rotations(3, True, 2)
    text0 = single_messages(
        input_text="q", output="OUT", reference="REF", criteria=CRITERIA, scale=scale, rotation=first
    )
    text1 = single_messages(
        input_text="q", output="OUT", reference="REF", criteria=CRITERIA, scale=scale, rotation=second
    )
    body0, body1 = text0[1]["content"], text1[1]["content"]
    assert body0.index("- accuracy") < body0.index("- completeness")
    assert body1.index("- completeness") < body1.index("- conciseness") < body1.index("- accuracy")
    assert body0.index("REF") < body0.index("OUT")
    assert body1.index("OUT") < body1.index("REF")


def test_parse_plain_fenced_and_chatty_answers() -> None:
    scale = parse_scale("1-5")
    plain = (
        '{"reasoning": "ok", "scores": {"accuracy": 4, "completeness": 5, "conciseness": 3}, "overall": 4}'
    )
    assert parse_verdict(plain, CRITERIA, scale).score == 0.75
    fenced = (
        'Sure! Here is my verdict:\n```json\n{"reasoning": "r", "scores": {}, "overall": "5"}\n```\nThanks.'
    )
    assert parse_verdict(fenced, CRITERIA, scale).score == 1.0
    trailing = '{"reasoning": "braces {in} text", "overall": "3/5"} and some trailing words {not json'
    assert parse_verdict(trailing, CRITERIA, scale).overall == 3.0
    cased = '{"Reasoning": "r", "Scores": {"ACCURACY": "2", "completeness": 2, "conciseness": 2}}'
    verdict = parse_verdict(cased, CRITERIA, scale)
    assert verdict.overall == 2.0  # no overall: the mean of the criteria
    assert verdict.scores == {"accuracy": 0.25, "completeness": 0.25, "conciseness": 0.25}
    assert parse_verdict('{"overall": "70%"}', CRITERIA, parse_scale("0-1")).score == pytest.approx(0.7)


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("I think it is good.", "no JSON object"),
        ('{"reasoning": "r", "overall": 7}', "outside the scale 1-5"),
        ('{"reasoning": "r", "overall": "great"}', "expected a number"),
        ('{"reasoning": "r", "overall": true}', "boolean"),
        ('{"reasoning": "r", "scores": {"accuracy": 3}}', "no `overall` and no score for completeness"),
        ('{"reasoning": "r", "overall": NaN}', "not finite"),
        ('{"reasoning": "r", "scores": [1, 2], "overall": 3}', "not an object"),
    ],
)
def test_unusable_answers_raise_instead_of_scoring_zero(answer: str, problem: str) -> None:
    with pytest.raises(AnswerError, match=problem):
        parse_verdict(answer, CRITERIA, parse_scale("1-5"))


def test_parse_pairwise_and_rewrites() -> None:
    assert parse_pairwise('{"reasoning": "x", "winner": "Output B"}').winner == "B"
    assert parse_pairwise('```\n{"winner": "TIE"}\n```').winner == "tie"
    with pytest.raises(AnswerError, match="expected"):
        parse_pairwise('{"winner": "C"}')
    rewrites = parse_rewrites('{"rewrites": [{"rationale": "why", "prompt": "P1"}, "P2", {"prompt": ""}]}')
    assert [r.prompt for r in rewrites] == ["P1", "P2"]
    with pytest.raises(AnswerError):
        parse_rewrites('{"rewrites": []}')
