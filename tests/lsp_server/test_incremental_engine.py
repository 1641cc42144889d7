"""The incremental pieces under the server's per-keystroke lint: re-cutting a document around an edit must
give exactly the chunks a parse from scratch gives, whatever the edit does to cuts, merges and lines."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from core.rules.evaluator.analysis import cutter

BENCH = Path(__file__).parents[2] / "bench"

SEEDS = [
    '"""Evaluator.\n\nLines at column 0 inside the docstring\nmake pieces merge.\n"""\nimport os\nimport sys\n\n'
    "@dec\n@other(1)\ndef f(\na=1,\n):\n    return (\n1)\n\n\nif x:\n    pass\nelse:\n    pass\n"
    "try:\n    import y\nexcept ImportError:\n    y = None\nfinally:\n    pass\nX = [\n    1,\n]\n"
    "s = 'a' \\\n'b'\nclass C:\n    def m(self):\n        return 1\nprint(f'auc: {X}')\n",
    "import os\r\nfiles = sorted(os.listdir('.'))\r\nfor f in files:\r\n    print(f)\r\nx = 1\ry = 2\n",
]
PIECES = (
    "x",
    "\n",
    "\r\n",
    "\r",
    '"""',
    '"""\n',
    "@dec\n",
    "else:\n",
    "finally:\n",
    "def g():\n    pass\n",
    "(",
    ")",
    "#",
    "\\",
    " ",
    "é",
    "😀",
    "import random\n",
    "x = 1\n",
)


def scratch(text: str) -> list[tuple[str, int]] | None:
    """The chunks (text, line) a parse from scratch makes, or None when it falls back to the whole file."""
    cut = cutter._Cutter(text, 0, 0, cutter._budget(text), {})
    if not cut.run():
        return None
    return [(p.chunk.text, p.line) for p in cut.placed]


def edit(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text) + 1)
    roll = rng.random()
    if roll < 0.55:
        return text[:at] + rng.choice(PIECES) + text[at:]
    if roll < 0.85:
        return text[:at] + text[at + rng.randint(1, 12) :]
    lines = text.split("\n")
    line = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines.pop(line))
    return "\n".join(lines)


def evaluator_1000() -> str:
    sys.path.insert(0, str(BENCH))
    try:
        from _evaluator_gen import generate
    finally:
        sys.path.pop(0)
    return str(generate(1000))


@pytest.mark.parametrize("seed", range(4))
def test_reparsing_around_an_edit_gives_the_chunks_of_a_parse_from_scratch(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    cutter.clear_cache()
    reparsed: list[bool] = []
    reparse = cutter._reparse

    def counting(*args: Any) -> Any:
        found = reparse(*args)
        reparsed.append(found is not None)
        return found

    monkeypatch.setattr(cutter, "_reparse", counting)
    texts = [*SEEDS, evaluator_1000()]
    valid = reused = 0
    for start in texts:
        text = start
        cutter.parse_document(text)
        for _ in range(120):
            candidate = edit(text, rng)
            reparsed.clear()
            placed = cutter.parse_document(candidate)
            expected = scratch(candidate)
            if expected is None or "\x00" in candidate:
                assert not isinstance(placed, list) or len(placed) == 1
                continue  # typing goes on from the last text that parses, as in an editor's history
            assert isinstance(placed, list), candidate
            valid += 1
            reused += bool(reparsed) and reparsed[-1]
            assert [(p.chunk.text, p.line) for p in placed] == expected, candidate
            assert len({id(p.chunk) for p in placed}) == len(placed)
            if rng.random() < 0.8:  # mostly keep typing on the edited text, sometimes go back
                text = candidate
    assert reused > 0.8 * valid  # the incremental path, not parses from scratch


def test_an_edit_at_the_end_and_a_new_document_parse_from_scratch() -> None:
    cutter.clear_cache()
    text = "import os\nx = 1\n"
    cutter.parse_document(text)
    for candidate in (text + "y = 2\n", text + "def f(", "z = 3\n", ""):
        placed = cutter.parse_document(candidate)
        expected = scratch(candidate)
        if expected is None:
            assert isinstance(placed, SyntaxError)
        else:
            assert isinstance(placed, list)
            assert [(p.chunk.text, p.line) for p in placed] == expected
