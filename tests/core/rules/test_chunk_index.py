"""A chunk's index is built in one fast pass (children read through per-type field plans, module names found
without indexing function bodies): it must say exactly what a plain walk of the tree and the full scope index
say, for every kind of node and binding."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator.analysis import cutter
from core.rules.evaluator.analysis.ast_utils import children
from core.rules.evaluator.analysis.chunk_results import ChunkResult
from core.rules.evaluator.analysis.chunks import Chunk
from core.rules.evaluator.analysis.cutter import OWNER
from core.rules.evaluator.analysis.recorded import Lookup
from core.rules.evaluator.analysis.scopes import ScopeIndex
from core.rules.evaluator.context import EvaluatorContext

ROOT = Path(__file__).parents[3]
_NOT_CHILDREN = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop, ast.type_ignore)

# Every kind of statement and expression, the optional fields both set and unset, and lists holding None
# (`{**d}` keys, keyword-only parameters without a default).
EVERY_SYNTAX = '''
from __future__ import annotations
import os, sys as system
from .pkg import name as alias, other
from . import *
x: int
y: list[int] = [1, *range(3)]
a = b = c, (d, *e) = f = 1, (2, 3, 4)
a += 1; del a; assert x, "m"; assert y
t = {**{}, "k": 1, **dict(z=2)}
s = {i for i in range(3) if i if not i}
g = (j async for j in aiter() if (w := j))
lam = lambda p, /, q=1, *r, s, u=(v := 2), **kw: p + q
sl = y[1:2, ::3, 4][:-1]
fs = f"{x!r:>{10}} {y=} {'nested'}"
cmp = 1 < x <= 2 is not None in [] not in ()
b = 1 if x else 2 or 3 and -x + ~x
@decorator(arg)
@other.attr
async def coro(p: int = 1, *, k, kd=2, **kw) -> None:
    """Doc."""
    global G
    nonlocal_test = 1
    async with open(x) as (fh, gh), lock:
        await fh
    async for item in stream:
        yield item
    else:
        yield from ()
    return
def outer():
    n = 1
    def inner():
        nonlocal n
        n = 2
    return inner
class K(Base, metaclass=Meta, **extra):
    attr: int = 0
    def method(self): ...
for i, (j, *k) in pairs:
    continue
else:
    break
while x:
    pass
else:
    raise ValueError("v") from None
try:
    pass
except (TypeError, ValueError) as err:
    raise
except Exception:
    pass
else:
    pass
finally:
    pass
try:
    pass
except* OSError as group:
    pass
with a as b, c:
    pass
match command:
    case [1, 2, *rest] if rest:
        pass
    case {"key": value, **others}:
        pass
    case Point(x=0, y=yy) | Point(0, yy) as point:
        pass
    case None | True | -1 | 1 + 2j | "s" | b"b" | K.attr:
        pass
    case _:
        pass
'''


def _corpus() -> list[tuple[str, str]]:
    files = sorted((ROOT / "core" / "rules").rglob("*.py")) + sorted(
        (ROOT / "tests" / "core" / "rules").rglob("*.py")
    )
    found = [("every syntax", EVERY_SYNTAX)]
    for path in files:
        text = path.read_text()
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        found.append((str(path.relative_to(ROOT)), text))
    return found


def _reference_children(node: ast.AST) -> list[ast.AST]:
    return [child for child in ast.iter_child_nodes(node) if not isinstance(child, _NOT_CHILDREN)]


def test_children_are_the_plain_walks_children_for_every_node() -> None:
    nodes = 0
    for name, text in _corpus():
        for node in ast.walk(ast.parse(text)):
            assert children(node) == _reference_children(node), (name, ast.dump(node)[:200])
            nodes += 1
    assert nodes > 50_000  # the corpus is the rules package and its tests: every kind of node, many times


def test_a_chunks_index_is_the_plain_pre_order_walk() -> None:
    for name, text in _corpus():
        tree = ast.parse(text)
        chunk = Chunk(text, tree)
        order: list[ast.AST] = []
        stack: list[ast.AST] = list(reversed(tree.body))
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(reversed(_reference_children(node)))
        assert chunk.nodes == order, name
        assert all(chunk.kids[id(node)] == _reference_children(node) for node in order), name
        assert "parents" not in chunk.__dict__  # built on first use (few new chunks are asked for a parent)
        expected = {child: node for node in order for child in _reference_children(node)}
        assert chunk.parents == expected and list(chunk.parents) == list(expected), name
        loads: dict[str, list[ast.Name]] = {}
        for node in order:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                loads.setdefault(node.id, []).append(node)
        assert chunk.name_loads == loads, name
        stores = {n.id for n in order if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        assert stores <= chunk.bound_names, name


MODULE_NAMES = {
    "walrus in a module comprehension": "[y for x in range(3) if (y := x)]\n",
    "walrus in a lambda default": "f = lambda p=(q := 1): (r := p)\n",
    "function": "def f(a, b=(c := 1)):\n    d = 1\n    e: int = 2\n    import os\n    [g for g in d]\n",
    "class": "class K(Base):\n    attr = 1\n    def m(self):\n        local = 1\n",
    "nested and nonlocal": "def f():\n    n = 1\n    def g():\n        nonlocal n\n        n = 2\n    return g\n",
    "module statements": (
        "import os.path, sys as system\nfrom x import y as z, w\nfor i, (j, *k) in p:\n    del i\n"
        "with open(a) as fh, b as (c, d):\n    pass\ntry:\n    pass\nexcept E as err:\n    pass\n"
        "match v:\n    case [1, *rest] | {'k': rest, **more} | Point(x=rest) as whole:\n        pass\n"
    ),
    "global in a function": "def f():\n    global SEED, OTHER\n    SEED = 1\n    local = 2\n",
    "global in a class body": "class K:\n    global G\n    G = 1\n",
    "global in a nested function": "def f():\n    def g():\n        global H\n        H = 1\n",
    "the word global elsewhere": "global_step = 1\ndef f():\n    x = 'global'\n",
}


@pytest.mark.parametrize("text", MODULE_NAMES.values(), ids=MODULE_NAMES.keys())
def test_module_names_are_the_full_scope_indexs_module_and_global_bindings(text: str) -> None:
    chunk = Chunk(text, ast.parse(text))
    full = ScopeIndex(chunk)
    assert chunk.module_names == {*full.module_bindings, *full.global_bindings}
    assert {("module_last", name) for name in chunk.module_names} <= chunk.contributed


def test_module_names_of_a_function_without_global_do_not_build_its_scope_index() -> None:
    text = "def f(rows):\n    total = 0\n    for row in rows:\n        total += row\n    return total\n"
    chunk = Chunk(text, ast.parse(text))
    assert chunk.module_names == {"f"}
    assert "scope_index" not in chunk.__dict__  # the point of the fast path: the function body is not indexed
    assert {"total", "row", "rows"} <= {*chunk.scope_index.scopes[id(chunk.body[0])].bindings}


def _context(text: str) -> EvaluatorContext:
    placed = cutter.parse_document(text)
    assert not isinstance(placed, SyntaxError | ValueError)
    return EvaluatorContext.for_document(
        "evaluate.py", text, DocumentKind.EVALUATOR, LintContext(), placed=placed
    )


DOCUMENT = "import os\n\n\ndef first():\n    return os.getcwd()\n\n\ndef second():\n    return os.sep\n"


def test_a_chunks_nodes_enter_the_owner_table_when_a_document_first_asks_for_one() -> None:
    cutter.clear_cache()
    ctx = _context(DOCUMENT)
    first, second = ctx.placed[1].chunk, ctx.placed[2].chunk
    asked, other = first.body[0], second.body[0]
    assert id(asked) not in OWNER and id(other) not in OWNER  # a new chunk costs no owner entries
    assert ctx.chunk_of(asked) is first
    assert OWNER[id(asked)] is first and all(OWNER[key] is first for key in first.ids)
    assert id(other) not in OWNER
    assert ctx.kids[id(other)] == children(other)  # the child links find the chunk the same way
    assert OWNER[id(other)] is second
    assert ctx.chunk_of(ast.Name("built", ast.Load())) is None


def test_an_evicted_chunk_leaves_no_owner_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    cutter.clear_cache()
    monkeypatch.setattr(cutter, "MAX_CHUNKS", 3)
    old = _context(DOCUMENT)
    for placed in old.placed:
        assert old.chunk_of(placed.chunk.body[0]) is placed.chunk
    new = _context(DOCUMENT.replace("os.sep", "os.linesep").replace("getcwd", "getcwdb"))
    for placed in new.placed:
        assert new.chunk_of(placed.chunk.body[-1]) is placed.chunk
    cached = {id(chunk) for chunk in cutter._CHUNKS.values()}
    evicted = [p.chunk for p in old.placed if id(p.chunk) not in cached]
    assert len(cached) == 3 and len(evicted) >= 2
    assert {id(chunk) for chunk in OWNER.values()} <= cached
    asked = {id(p.chunk): p.chunk for ctx in (old, new) for p in ctx.placed if id(p.chunk) in cached}
    assert len(OWNER) == sum(len(chunk.ids) for chunk in asked.values())
    for chunk in evicted:  # still found by the document that holds it, never entered again
        assert old.chunk_of(chunk.body[0]) is chunk and id(chunk.body[0]) not in OWNER
    cutter.clear_cache()


def test_a_chunk_results_keys_are_its_reads_kinds_and_subjects() -> None:
    reads: dict[Lookup, object] = {
        Lookup("alias", "np"): "numpy",
        Lookup("module_before", "x", asker=7): None,
    }
    result = ChunkResult(reads, {"EV010": []}, {})
    assert result.kinds == {"alias", "module_before"} and not result.has_diagnostics
    assert (
        result.match_keys == {lookup.subject for lookup in reads} == {("alias", "np"), ("module_before", "x")}
    )
