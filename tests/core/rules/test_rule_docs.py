"""Every rule's documentation (printed by `proctor rule CODE`) has the headings and examples STYLE.md asks for."""

from __future__ import annotations

import ast
import re

import pytest

from core.rules.registry import RULES, get_rule

HEADINGS = ("## What it does", "## Why is this bad?", "## Example", "Use instead:", "## References")
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)
CODE = re.compile(r"^[A-Z]{2}\d{3}$")
NAME = re.compile(r"^[a-z]+(?:-[a-z0-9]+)*$")


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_doc_has_headings_and_examples(code: str) -> None:
    info = RULES[code]
    doc = info.doc
    positions = [doc.find(heading) for heading in HEADINGS]
    assert all(p >= 0 for p in positions), (
        f"{code} lacks {[h for h, p in zip(HEADINGS, positions, strict=True) if p < 0]}"
    )
    assert positions == sorted(positions), f"{code}: headings out of order"
    bad = FENCE.findall(doc[positions[2] : positions[3]])
    good = FENCE.findall(doc[positions[3] :])
    assert bad, f"{code}: no bad example under `## Example`"
    assert good, f"{code}: no good example after `Use instead:`"
    assert ("## Fix safety" in doc) == (info.fix_title is not None), (
        f"{code}: `## Fix safety` iff it has a fix"
    )


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_metadata(code: str) -> None:
    info = RULES[code]
    assert CODE.match(info.code) and info.code == code
    assert NAME.match(info.name), f"{code}: name {info.name!r} is not kebab-case"
    assert info.kinds
    assert get_rule(code.lower()) is info


@pytest.mark.parametrize("code", sorted(c for c in RULES if c.startswith("EV") and c != "EV001"))
def test_python_examples_parse(code: str) -> None:
    for language, body in FENCE.findall(RULES[code].doc):
        if language == "python":
            ast.parse(body)


def test_evaluator_rules_are_all_registered_and_sorted() -> None:
    assert [c for c in RULES if c.startswith("EV")] == [f"EV{n:03d}" for n in range(1, 20)]
    assert list(RULES) == sorted(RULES)
