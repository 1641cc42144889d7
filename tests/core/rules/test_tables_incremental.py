"""The whole-file tables of a lint are merged from the last lint of the same document when only a short run
of chunks changed (`tables.tables_after`): they must equal a merge of every chunk, key order included,
after every kind of edit, and never keep an answer the edit changed."""

from __future__ import annotations

import ast
import random
from collections.abc import Sequence

import pytest

from core.rules.evaluator.analysis import cutter
from core.rules.evaluator.analysis.chunks import Placed
from core.rules.evaluator.analysis.tables import WholeFileTables, clear_tables, tables_after

HEAD = "import math\nimport random as rnd\n\nSEED = 1\n\n\n"
STATEMENTS = [
    "def helper_{n}(value):\n    scaled = value * {n}\n    return math.sqrt(scaled)\n",
    "class Model_{n}:\n    def fit(self):\n        self.seed = SEED\n",
    "def helper_{n}(value):\n    '''a redefinition: the last one wins'''\n    total = value\n    return total\n",
    "from json import dumps as dump_{n}\n",
    "import numpy as np\n",
    "THRESHOLD = rnd.random() + {n}\n",
    "table_{n} = {{}}\ntable_{n}['k'] = 'auc'\n",
    "print(f'auc: {{helper_{n}(0.5)}}')\n",
]
NAMES = ["pasted", "helper_1", "main", "Model_2", "scaled", "total", "dump_3", "THRESHOLD", "np", "rnd"]


def _placed(text: str) -> Sequence[Placed]:
    placed = cutter.parse_document(text)
    assert not isinstance(placed, SyntaxError | ValueError)
    return placed


def _snapshot(tables: WholeFileTables) -> dict[str, object]:
    """Everything a lookup can see of the tables, in order, nodes by identity."""

    def ids(values: Sequence[ast.AST] | None) -> list[int] | None:
        return None if values is None else [id(v) for v in values]

    return {
        "functions": [(k, id(v)) for k, v in tables.functions.items()],
        "classes": [(k, id(v)) for k, v in tables.classes.items()],
        "methods": [(k, ids(v)) for k, v in tables.methods.items()],
        "aliases": list(tables.aliases.items()),
        "top_aliases": list(tables.top_aliases.items()),
        "assigned": [(k, ids(v)) for k, v in tables.assigned.items()],
        "bound": sorted(n for n in [*NAMES, *(f"helper_{i}" for i in range(40))] if n in tables.bound_names),
        "name_loads": [(n, ids(tables.name_loads.get(n))) for n in [*NAMES, "value", "math", "SEED"]],
        "attribute_loads": [(n, ids(tables.attribute_loads.get(n))) for n in ("sqrt", "random", "seed")],
        "strings": [
            (s, ids(tables.string_nodes(s))) for s in ("k", "auc", "a redefinition: the last one wins")
        ],
        "key_adders": [(n, ids(tables.key_adders(n))) for n in ("table_1", "table_2", "table_5")],
        "fast": tables.has_fast_parameter(),
    }


def _check(text: str) -> None:
    placed = _placed(text)
    incremental = tables_after("evaluate.py", placed)
    assert _snapshot(incremental) == _snapshot(WholeFileTables(placed))


def _statements(rng: random.Random, count: int) -> list[str]:
    return [rng.choice(STATEMENTS).format(n=rng.randrange(6)) for _ in range(count)]


@pytest.mark.parametrize("seed", range(12))
def test_tables_merged_from_the_last_lint_equal_a_whole_merge(seed: int) -> None:
    clear_tables()
    rng = random.Random(seed)
    body = _statements(rng, 14)
    for _ in range(40):
        action = rng.choice(("replace", "insert", "delete", "append", "unchanged"))
        at = rng.randrange(len(body))
        if action == "replace":
            body[at] = _statements(rng, 1)[0]
        elif action == "insert":
            body.insert(at, _statements(rng, 1)[0])
        elif action == "delete" and len(body) > 2:
            del body[at]
        elif action == "append":
            body.extend(_statements(rng, rng.randrange(1, 3)))
        _check(HEAD + "\n\n".join(body))


def test_an_edited_chunk_never_keeps_its_old_answer() -> None:
    clear_tables()
    before = HEAD + "def helper_1(value):\n    return value\n\n\ndef main():\n    return helper_1(1)\n"
    first = tables_after("evaluate.py", _placed(before))
    old = first.functions["helper_1"]
    renamed = tables_after(
        "evaluate.py", _placed(before.replace("def helper_1(value)", "def helper_2(value)"))
    )
    assert "helper_1" not in renamed.functions and "helper_1" not in renamed.bound_names
    assert list(renamed.functions) == ["helper_2", "main"]
    edited = tables_after("evaluate.py", _placed(before.replace("return value", "return value + 1")))
    assert edited.functions["helper_1"] is not old
    assert list(edited.functions) == ["helper_1", "main"]
    realiased = tables_after("evaluate.py", _placed(before.replace("random as rnd", "numpy as rnd")))
    assert realiased.aliases["rnd"] == "numpy"
