"""The static model of the evaluator's `sys.path` (IN007): which workspace directories come before what.

The command gives the first entries (`evaluator_command`); what the baseline suite does to `sys.path`
(`insert`, `append`, `extend`, `site.addsitedir`, slice and `+` assignment) is read from its source, with
the paths it adds resolved statically where possible and taken to be the workspace root otherwise. Pure:
the suite's sources come in as text.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from core.integrity.classify import module_name, within
from core.integrity.evaluator_command import OUTSIDE, analyse_command, norm_rel


@dataclass(frozen=True)
class Slot:
    """One entry of the evaluator's modelled sys.path: a workspace directory, the stdlib or site-packages."""

    kind: Literal["dir", "stdlib", "site"]
    rel: str = ""
    trusted: bool = False  # inside the suite, which the baseline's bytes overwrite before a run


@dataclass(frozen=True)
class EvaluatorModel:
    slots: tuple[Slot, ...]
    pytest: bool
    imports: frozenset[str]
    suite_modules: dict[str, frozenset[str]] = field(default_factory=dict)
    suite_package: tuple[str, str] = ("", "")

    def position(self, rel: str) -> int | None:
        for index, slot in enumerate(self.slots):
            if slot.kind == "dir" and not slot.trusted and slot.rel == rel:
                return index
        return None

    def scoring_modules(self, roots: frozenset[str]) -> frozenset[str]:
        """`roots` plus the suite's own modules and package: what a run-time patch must not touch (IN011)."""
        local = {name for names in self.suite_modules.values() for name in names}
        return roots | local | {self.suite_package[1]}


def dotted(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of names and attributes; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


# ------------------------------------------------------------------------------ static path evaluation

_PATH_MAKERS = frozenset(
    {"abspath", "realpath", "normpath", "fspath", "str", "Path", "PurePath", "PosixPath"}
)
_SAME_PATH = frozenset({"resolve", "absolute", "expanduser"})


class _PathEval:
    """Evaluates the usual spellings of a path (`Path(__file__).resolve().parents[1] / "src"`, `os.path...`)
    to a workspace-relative directory; None when the expression is not understood."""

    _HANDLERS: ClassVar[dict[type[ast.expr], Callable[[_PathEval, ast.expr], str | None]]]

    def __init__(self, file_rel: str) -> None:
        self.file_rel = file_rel
        self.names: dict[str, str] = {}

    def eval(self, node: ast.expr) -> str | None:
        handler = self._HANDLERS.get(type(node))
        return handler(self, node) if handler is not None else None

    def _constant(self, node: ast.expr) -> str | None:
        assert isinstance(node, ast.Constant)
        return norm_rel(node.value or ".") if isinstance(node.value, str) else None

    def _name(self, node: ast.expr) -> str | None:
        assert isinstance(node, ast.Name)
        return self.file_rel if node.id == "__file__" else self.names.get(node.id)

    def _attribute(self, node: ast.expr) -> str | None:
        assert isinstance(node, ast.Attribute)
        return self._parent(self.eval(node.value)) if node.attr == "parent" else None

    def _subscript(self, node: ast.expr) -> str | None:
        assert isinstance(node, ast.Subscript)
        if not (isinstance(node.value, ast.Attribute) and node.value.attr == "parents"):
            return None
        base = self.eval(node.value.value)
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
            for _ in range(node.slice.value + 1):
                base = self._parent(base)
            return base
        return None

    def _binop(self, node: ast.expr) -> str | None:
        assert isinstance(node, ast.BinOp)
        return (
            self._join(self.eval(node.left), self.eval(node.right)) if isinstance(node.op, ast.Div) else None
        )

    def _call(self, node: ast.expr) -> str | None:
        assert isinstance(node, ast.Call)
        func, args = dotted(node.func), node.args
        if func is None:
            same = isinstance(node.func, ast.Attribute) and node.func.attr in _SAME_PATH
            return self.eval(node.func.value) if same and isinstance(node.func, ast.Attribute) else None
        last = func.rsplit(".", 1)[-1]
        if last in ("getcwd", "cwd") and not args:
            return ""
        if last == "dirname" and len(args) == 1:
            return self._parent(self.eval(args[0]))
        if last in _PATH_MAKERS:
            return self.eval(args[0]) if len(args) == 1 else ("" if not args and last != "str" else None)
        if last in _SAME_PATH and isinstance(node.func, ast.Attribute):
            return self.eval(node.func.value)
        if last == "join" and args:
            result = self.eval(args[0])
            for arg in args[1:]:
                result = self._join(result, self.eval(arg))
            return result
        return None

    @staticmethod
    def _parent(path: str | None) -> str | None:
        if path is None or path == OUTSIDE:
            return path
        if path == "":
            return OUTSIDE
        return posixpath.dirname(path)

    @staticmethod
    def _join(left: str | None, right: str | None) -> str | None:
        if left is None or right is None:
            return None
        if left == OUTSIDE or right == OUTSIDE:
            return OUTSIDE
        return norm_rel(posixpath.join(left, right) if left else right)


_PathEval._HANDLERS = {
    ast.Constant: _PathEval._constant,
    ast.Name: _PathEval._name,
    ast.Attribute: _PathEval._attribute,
    ast.Subscript: _PathEval._subscript,
    ast.BinOp: _PathEval._binop,
    ast.Call: _PathEval._call,
}


@dataclass(frozen=True)
class _PathEdit:
    where: Literal["front", "index", "end"]
    index: int
    rel: str | None  # None: not understood (taken as the workspace root)
    site: bool = False


class _SysPathEdits:
    """What one suite file does to sys.path: the names it gives `sys` and `sys.path`, then the edits."""

    def __init__(self, tree: ast.Module, file_rel: str) -> None:
        self.evaluator = _PathEval(file_rel)
        self.sys_names = {"sys"}
        self.path_names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                self.sys_names.update(a.asname or "sys" for a in node.names if a.name == "sys")
            elif isinstance(node, ast.ImportFrom) and node.module == "sys":
                self.path_names.update(a.asname or "path" for a in node.names if a.name == "path")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                value = self.evaluator.eval(node.value)
                if value is not None:
                    self.evaluator.names[node.targets[0].id] = value

    def is_sys_path(self, node: ast.expr) -> bool:
        name = dotted(node)
        if name is None:
            return False
        head, _, rest = name.partition(".")
        return (head in self.sys_names and rest == "path") or (name in self.path_names)

    def values(self, node: ast.expr) -> list[ast.expr]:
        if isinstance(node, (ast.List, ast.Tuple)):
            return list(node.elts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return [
                v for side in (node.left, node.right) if not self.is_sys_path(side) for v in self.values(side)
            ]
        return [node]

    def edits(self, tree: ast.Module) -> list[_PathEdit]:
        found: list[_PathEdit] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                found.extend(self._call(node, node.func))
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                found.extend(self._assignment(node))
        return found

    def _call(self, node: ast.Call, func: ast.Attribute) -> list[_PathEdit]:
        evaluate, args = self.evaluator.eval, node.args
        if self.is_sys_path(func.value):
            if func.attr == "insert" and len(args) == 2:
                position = args[0]
                value = position.value if isinstance(position, ast.Constant) else None
                index = value if isinstance(value, int) else 0
                return [_PathEdit("front" if index <= 0 else "index", index, evaluate(args[1]))]
            if func.attr == "append" and len(args) == 1:
                return [_PathEdit("end", 0, evaluate(args[0]))]
            if func.attr == "extend" and len(args) == 1:
                return [_PathEdit("end", 0, evaluate(v)) for v in self.values(args[0])]
        if dotted(func) == "site.addsitedir" and args:
            return [_PathEdit("end", 0, evaluate(args[0]), site=True)]
        return []

    def _assignment(self, node: ast.Assign | ast.AugAssign) -> list[_PathEdit]:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        found: list[_PathEdit] = []
        for target in targets:
            if isinstance(target, ast.Subscript) and self.is_sys_path(target.value):
                found.extend(_PathEdit("front", 0, self.evaluator.eval(v)) for v in self.values(node.value))
            elif self.is_sys_path(target):
                front = (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.BinOp)
                    and self.is_sys_path(node.value.right)
                )
                where: Literal["front", "end"] = "front" if front else "end"
                found.extend(_PathEdit(where, 0, self.evaluator.eval(v)) for v in self.values(node.value))
        return found


def path_edits(source: str, file_rel: str) -> list[_PathEdit]:
    """What one suite file does to sys.path, in source order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return _SysPathEdits(tree, file_rel).edits(tree)


def imported_names(source: str) -> set[str]:
    """Top-level module names a file imports (absolute imports and literal `import_module`/`__import__`)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = dotted(node.func) or ""
            value = node.args[0].value
            if (
                func.rsplit(".", 1)[-1] in ("import_module", "__import__")
                and isinstance(value, str)
                and value
            ):
                names.add(value.split(".")[0])
    return names


def build_model(
    command: str, suite_root: str, suite_sources: dict[str, str], suite_files: Iterable[str]
) -> EvaluatorModel:
    """The evaluator's modelled sys.path, imports and suite-local modules.

    `suite_sources` maps workspace-relative paths of the baseline suite's `.py` files to their text;
    `suite_files` lists every baseline suite file (workspace-relative).
    """
    parsed = analyse_command(command)

    def slot_for(rel: str) -> Slot:
        return Slot("dir", rel, trusted=within(rel, suite_root) and bool(suite_root))

    slots = [slot_for(parsed.path0)] if parsed.path0 is not None else []
    slots.extend(slot_for(rel) for rel in parsed.pythonpath)
    slots.extend([Slot("stdlib"), Slot("site")])
    entry = norm_rel(parsed.script) if parsed.script else None
    for rel in sorted(suite_sources, key=lambda rel: (rel != entry, rel)):
        for edit in path_edits(suite_sources[rel], rel):
            target = edit.rel if edit.rel is not None else ""
            if target != OUTSIDE:
                _apply(slots, edit, slot_for(target))
    imports: set[str] = set()
    for source in suite_sources.values():
        imports |= imported_names(source)
    if parsed.script:
        imports.add(posixpath.basename(parsed.script).removesuffix(".py"))
    top = suite_root.split("/")
    return EvaluatorModel(
        slots=tuple(slots),
        pytest=parsed.pytest,
        imports=frozenset(imports),
        suite_modules=_suite_modules(suite_files),
        suite_package=("/".join(top[:-1]), top[-1]),
    )


def _apply(slots: list[Slot], edit: _PathEdit, new: Slot) -> None:
    if edit.where == "front":
        slots.insert(0, new)
    elif edit.where == "index":
        slots.insert(min(edit.index, len(slots)), new)
    else:
        slots.append(new)


def _suite_modules(suite_files: Iterable[str]) -> dict[str, frozenset[str]]:
    """{directory: module and package names} the baseline suite provides there."""
    modules: dict[str, set[str]] = {}
    for rel in suite_files:
        directory, _, name = rel.rpartition("/")
        found = module_name(name)
        if found:
            modules.setdefault(directory, set()).add(found)
        parts = rel.split("/")
        for depth in range(1, len(parts) - 1):
            if parts[depth].isidentifier():
                modules.setdefault("/".join(parts[:depth]), set()).add(parts[depth])
    return {key: frozenset(value) for key, value in modules.items()}
