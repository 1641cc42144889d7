"""Tolerant reading of judge answers: code fences, chatter around the JSON, numbers written as strings.

A parse never guesses a score: anything it cannot read with confidence raises `AnswerError`, which the caller
turns into one repair retry and then a counted parse failure — never a silent 0.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import AnswerError
from core.judge.prompts import Scale


@dataclass(frozen=True)
class Verdict:
    """One parsed single-output answer, on the judge's scale (`overall`) and mapped to [0, 1] (`score`)."""

    reasoning: str
    scores: Mapping[str, float]  # criterion → [0, 1]
    overall: float  # on the scale
    score: float  # overall mapped to [0, 1]


@dataclass(frozen=True)
class PairwiseVerdict:
    reasoning: str
    winner: str  # "A", "B" or "tie"


@dataclass(frozen=True)
class Rewrite:
    rationale: str
    prompt: str


_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(%|/\s*\d+(?:\.\d+)?)?\s*$")


def extract_object(text: str) -> dict[str, Any]:
    """The first JSON object in `text`: inside a code fence if there is one, else the first `{...}` that parses."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for chunk in candidates:
        for start in [i for i, ch in enumerate(chunk) if ch == "{"]:
            try:
                value, _ = decoder.raw_decode(chunk, start)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    raise AnswerError("no JSON object found in the answer")


def to_number(value: Any, what: str) -> float:
    """A finite number from a JSON number or a numeric string ("4", "0.8", "80%", "4/5" means 4)."""
    if isinstance(value, bool):
        raise AnswerError(f"{what} is a boolean, expected a number")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        match = _NUMBER.match(value)
        if match is None:
            raise AnswerError(f"{what} is {value!r}, expected a number")
        number = float(match.group(1))
        if match.group(2) == "%":
            number /= 100
    else:
        raise AnswerError(f"{what} is {type(value).__name__}, expected a number")
    if not math.isfinite(number):
        raise AnswerError(f"{what} is not finite")
    return number


def _lookup(mapping: Mapping[str, Any], name: str) -> Any:
    if name in mapping:
        return mapping[name]
    folded = {str(key).strip().casefold(): value for key, value in mapping.items()}
    return folded.get(name.strip().casefold())


def parse_verdict(text: str, criteria: tuple[str, ...], scale: Scale) -> Verdict:
    """Read a single-output verdict; `overall` falls back to the mean of the criteria when it is missing."""
    obj = extract_object(text)
    raw_scores = _lookup(obj, "scores")
    scores: dict[str, float] = {}
    if isinstance(raw_scores, Mapping):
        for name in criteria:
            value = _lookup(raw_scores, name)
            if value is None:
                continue
            number = to_number(value, f"scores.{name}")
            if not scale.contains(number):
                raise AnswerError(f"scores.{name} = {number:g} is outside the scale {scale.name}")
            scores[name] = number
    elif raw_scores is not None:
        raise AnswerError("`scores` is not an object")
    raw_overall = _lookup(obj, "overall")
    if raw_overall is None:
        if len(scores) != len(criteria):
            missing = [name for name in criteria if name not in scores]
            raise AnswerError(f"no `overall` and no score for {', '.join(missing)}")
        overall = math.fsum(scores.values()) / len(scores)
    else:
        overall = to_number(raw_overall, "overall")
    if not scale.contains(overall):
        raise AnswerError(f"overall = {overall:g} is outside the scale {scale.name}")
    overall = min(max(overall, scale.low), scale.high)
    reasoning = _lookup(obj, "reasoning")
    return Verdict(
        reasoning=reasoning if isinstance(reasoning, str) else "",
        scores={name: min(max(scale.to_unit(v), 0.0), 1.0) for name, v in scores.items()},
        overall=overall,
        score=min(max(scale.to_unit(overall), 0.0), 1.0),
    )


_WINNERS = {"a": "A", "b": "B", "tie": "tie", "draw": "tie", "equal": "tie", "none": "tie"}


def parse_pairwise(text: str) -> PairwiseVerdict:
    obj = extract_object(text)
    raw = _lookup(obj, "winner")
    if not isinstance(raw, str):
        raise AnswerError("`winner` is missing or not a string")
    key = raw.strip().strip(".").casefold().removeprefix("output ").removeprefix("output_").strip()
    if key not in _WINNERS:
        raise AnswerError(f'`winner` is {raw!r}, expected "A", "B" or "tie"')
    reasoning = _lookup(obj, "reasoning")
    return PairwiseVerdict(reasoning if isinstance(reasoning, str) else "", _WINNERS[key])


def parse_rewrites(text: str) -> list[Rewrite]:
    obj = extract_object(text)
    raw = _lookup(obj, "rewrites")
    if not isinstance(raw, list):
        raise AnswerError("`rewrites` is missing or not a list")
    rewrites = []
    for entry in raw:
        if isinstance(entry, str) and entry.strip():
            rewrites.append(Rewrite("", entry))
        elif isinstance(entry, Mapping) and isinstance(entry.get("prompt"), str) and entry["prompt"].strip():
            rationale = entry.get("rationale")
            rewrites.append(Rewrite(rationale if isinstance(rationale, str) else "", entry["prompt"]))
    if not rewrites:
        raise AnswerError("`rewrites` holds no prompt")
    return rewrites
