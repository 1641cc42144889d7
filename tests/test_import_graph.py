"""No import cycle between Proctor's modules, counting every import a module can run.

A cycle hidden in a function (`def f(): from core.x import y`) is still a cycle: the two modules cannot be
understood, tested or moved apart, and the import order decides whether the program starts. The graph is built
from each module's AST without importing anything: module-level and function-local imports count, imports under
`if TYPE_CHECKING:` do not (they never run). A package's `__init__.py` is a node of its own, because
`import a.b.c` runs `a/__init__.py` and `a/b/__init__.py` first, and those may import back.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "lsp_server", "github_app")


def _modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every module of the packages by dotted name (a package by its own name, for its `__init__.py`)."""
    found: dict[str, Path] = {}
    for top in packages:
        for path in sorted((root / top).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: anywhere in the tree except the body of `if TYPE_CHECKING:`."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def _prefixes(dotted: str) -> list[str]:
    """`a.b.c` -> `a`, `a.b`, `a.b.c`: the modules `import a.b.c` runs, outermost first."""
    parts = dotted.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a `from ... import` reads from (relative levels resolved against the importer)."""
    if not node.level:
        return node.module or ""
    package = module if is_package else module.rpartition(".")[0]
    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{anchor}.{node.module}" if node.module else anchor


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    """The project modules one import statement runs or reads from.

    The importer's own enclosing packages are in `sys.modules` already when it runs, so passing through them
    does not run them again; reading a name (not a submodule) from one of them does depend on it.
    """
    enclosing = set(_prefixes(module)[:-1]) | ({module} if is_package else set())
    if isinstance(node, ast.Import):
        return {m for alias in node.names for m in _prefixes(alias.name) if m in known} - enclosing - {module}
    base = _base(module, is_package, node)
    targets = {m for m in _prefixes(base) if m in known} - enclosing
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        targets.add(submodule if submodule in known else base)
    return (targets & known) - {module}


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the project modules it imports (at any depth of its code, TYPE_CHECKING aside)."""
    modules = _modules(root, packages)
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        graph[name] = {t for node in _imports(tree) for t in _targets(name, is_package, node, known)}
    return graph


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while (member := stack.pop()) != node:
                        on_stack.discard(member)
                        component.append(member)
                    on_stack.discard(node)
                    if component:
                        found.append(sorted([node, *component]))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def _cycle_in(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One shortest cycle through the component's first module, for the failure message."""
    start = component[0]
    members = set(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    return [*paths[node], start]
                if child not in paths:
                    paths[child] = [*paths[node], child]
                    following.append(child)
        frontier = following
    return component


def _cycles(graph: dict[str, set[str]]) -> list[str]:
    return [" -> ".join(_cycle_in(component, graph)) for component in _components(graph)]


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_function_local_import_makes_a_cycle(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import g\n",
            "pkg/b.py": "def g():\n    from . import a\n    return a\n",
        },
    )
    graph = import_graph(root, ("pkg",))
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == {"pkg.a"}  # `from . import a` is the submodule, not the package
    assert _cycles(graph) == ["pkg.a -> pkg.b -> pkg.a"]


def test_type_checking_imports_are_no_edge(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import g\n",
            "pkg/b.py": "import typing\nif typing.TYPE_CHECKING:\n    from pkg.a import A\nelse:\n    import pkg.c\n",
            "pkg/c.py": "",
        },
    )
    graph = import_graph(root, ("pkg",))
    assert graph["pkg.b"] == {"pkg.c"}
    assert _cycles(graph) == []


def test_an_init_that_imports_back_is_a_cycle(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "top/__init__.py": "",
            "top/low/__init__.py": "from top.low.x import X\n",
            "top/low/x.py": "X = 1\n",
            "top/high.py": "import top.low.x\n",
            "top/other/__init__.py": "from ..low import X\n",  # a name read from a package needs its __init__
            "top/low/y.py": "def f():\n    import top.high\n",
        },
    )
    graph = import_graph(root, ("top",))
    assert graph["top.high"] == {"top.low", "top.low.x"}  # `import top.low.x` runs top/low/__init__.py too
    assert graph["top.low.x"] == set()  # its own package is initialised already: no edge back to it
    assert graph["top.other"] == {"top.low"}
    assert _cycles(graph) == []
    (root / "top/low/__init__.py").write_text("from top.low.x import X\nfrom top.low.y import f\n", "utf-8")
    assert _cycles(import_graph(root, ("top",))) == ["top.high -> top.low -> top.low.y -> top.high"]


def test_no_import_cycle() -> None:
    cycles = _cycles(import_graph())
    assert not cycles, "import cycles (function-local imports count):\n" + "\n".join(cycles)
