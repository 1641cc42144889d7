"""Deterministic metrics against a reference, and the blend with the LLM score (SPEC §7).

Normalisation is Unicode-aware: NFKC, case folding, every Unicode punctuation character removed, English
articles dropped, whitespace collapsed. Tokens are runs of Unicode word characters, so "naïve café" and
"東京" tokenize as words, not as bytes or ASCII fragments.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from core.errors import JudgeError

_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_TOKEN = re.compile(r"\w+")

METRICS = ("exact", "exact_normalized", "rouge1", "edit_similarity", "mean")


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def exact_match(output: str, reference: str) -> float:
    return 1.0 if output == reference else 0.0


def exact_match_normalized(output: str, reference: str) -> float:
    return 1.0 if normalize(output) == normalize(reference) else 0.0


def rouge1_recall(output: str, reference: str) -> float:
    """Share of the reference's unigrams (with multiplicity) that the output contains; 1.0 for two empties."""
    ref = Counter(tokens(reference))
    total = sum(ref.values())
    if total == 0:
        return 1.0 if not tokens(output) else 0.0
    out = Counter(tokens(output))
    return sum(min(count, out[word]) for word, count in ref.items()) / total


def edit_similarity(output: str, reference: str) -> float:
    """1 − normalized Levenshtein distance (rapidfuzz) of the normalized texts."""
    from rapidfuzz.distance import Levenshtein

    return 1.0 - float(Levenshtein.normalized_distance(normalize(output), normalize(reference)))


@dataclass(frozen=True)
class DeterministicScores:
    exact: float
    exact_normalized: float
    rouge1: float
    edit_similarity: float

    @property
    def mean(self) -> float:
        return (self.exact + self.exact_normalized + self.rouge1 + self.edit_similarity) / 4

    def pick(self, metric: str) -> float:
        if metric not in METRICS:
            raise JudgeError(f"unknown deterministic metric {metric!r}: expected one of {', '.join(METRICS)}")
        return float(getattr(self, metric))


def deterministic_scores(output: str, reference: str) -> DeterministicScores:
    return DeterministicScores(
        exact=exact_match(output, reference),
        exact_normalized=exact_match_normalized(output, reference),
        rouge1=rouge1_recall(output, reference),
        edit_similarity=edit_similarity(output, reference),
    )


def blend(llm: float, deterministic: float, weight: float = 0.5) -> float:
    """`llm * weight + deterministic * (1 - weight)`; both scores and the weight are in [0, 1]."""
    for name, value in (("llm", llm), ("deterministic", deterministic), ("weight", weight)):
        if not 0.0 <= value <= 1.0:
            raise JudgeError(f"blend: {name} = {value!r} is outside [0, 1]")
    return llm * weight + deterministic * (1 - weight)
