"""The per-document analysis every evaluator rule shares, built once per lint.

It holds the parsed `ast`, import-alias resolution (`np.random.rand` -> `numpy.random.rand`), parent links,
module constants and exact positions: `ast` reports UTF-8 byte columns, diagnostics use code points.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Collection, Iterator
from functools import cached_property
from pathlib import PurePosixPath
from types import ModuleType

from core.diagnostics import Diagnostic, Fix, Position, Range, TextEdit, byte_col_to_char
from core.rules.base import DocumentKind, LintContext

LINE_BREAK = re.compile(r"\r\n|\r|\n")
BUILTIN_NAMES = frozenset(dir(builtins))
EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit"})


def split_lines(text: str) -> list[str]:
    """Lines exactly as the tokenizer counts them (`str.splitlines` also splits on form feeds)."""
    return LINE_BREAK.split(text)


class EvaluatorContext:
    """One parsed Python document of the suite plus the lookups the rules need."""

    def __init__(
        self, relpath: str, text: str, kind: DocumentKind, lint: LintContext, tree: ast.Module
    ) -> None:
        self.relpath = relpath
        self.text = text
        self.kind = kind
        self.lint = lint
        self.tree = tree
        self.lines = split_lines(text)
        self.suite = _norm_dir(lint.config.evaluation_dir)
        self.data_dir = _norm_dir(lint.config.data_dir)
        self._qualnames: dict[int, str | None] = {}
        self._line_ascii: dict[int, bool] = {}
        self.aliases: dict[str, str] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        self.calls: list[ast.Call] = []
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.methods: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.assigned: dict[str, list[ast.expr]] = {}
        self.bound_names: set[str] = set()
        self.strings: list[ast.Constant] = []
        self.attribute_loads: dict[str, list[ast.Attribute]] = {}
        self.name_loads: dict[str, list[ast.Name]] = {}
        self.handlers: list[ast.ExceptHandler] = []
        self.memo: dict[str, object] = {}  # analyses shared by several rules (flow, metric print)
        self._index()

    # -- indexing ------------------------------------------------------------------------------------------

    def _index(self) -> None:
        """One pass over the tree: parents, calls, imports, definitions, assignments."""
        self.kids: dict[int, list[ast.AST]] = {}
        self.nodes: list[ast.AST] = []  # every node, pre-order: rules scan this instead of re-walking
        stack: list[ast.AST] = [self.tree]
        parents = self.parents
        while stack:
            node = stack.pop()
            self.nodes.append(node)
            kids = children(node)
            self.kids[id(node)] = kids
            for child in kids:
                parents[child] = node
            stack.extend(reversed(kids))
            if isinstance(node, ast.Call):
                self.calls.append(node)
            elif isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    self.name_loads.setdefault(node.id, []).append(node)
                else:
                    self.bound_names.add(node.id)
            elif isinstance(node, ast.Attribute):
                if isinstance(node.ctx, ast.Load):
                    self.attribute_loads.setdefault(node.attr, []).append(node)
            elif isinstance(node, ast.Constant):
                if isinstance(node.value, str):
                    self.strings.append(node)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                self.imports.append(node)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, ast.AnnAssign | ast.NamedExpr):
                if isinstance(node.target, ast.Name) and node.value is not None:
                    self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.bound_names.add(node.name)
            elif isinstance(node, ast.ClassDef):
                self.bound_names.add(node.name)
                self.classes[node.name] = node
            elif isinstance(node, ast.ExceptHandler):
                self.handlers.append(node)
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions[node.name] = node
        for cls in self.classes.values():
            for item in cls.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.methods.setdefault(item.name, []).append(item)
        self.top_aliases: dict[str, str] = {}
        for imp in sorted(self.imports, key=lambda n: (n.lineno, n.col_offset)):
            top_level = imp in self.tree.body
            if isinstance(imp, ast.Import):
                for alias in imp.names:
                    local = alias.asname or alias.name.split(".")[0]
                    bound = alias.name if alias.asname else local
                    self.aliases[local] = bound
                    if top_level:
                        self.top_aliases[local] = bound
            elif imp.level == 0 and imp.module:
                for alias in imp.names:
                    if alias.name != "*":
                        self.aliases[alias.asname or alias.name] = f"{imp.module}.{alias.name}"
                        if top_level:
                            self.top_aliases[alias.asname or alias.name] = f"{imp.module}.{alias.name}"

    # -- names ---------------------------------------------------------------------------------------------

    def qualname(self, expr: ast.AST) -> str | None:
        """`np.random.rand` -> `numpy.random.rand`; builtins keep their name; anything local is None."""
        key = id(expr)
        if key in self._qualnames:
            return self._qualnames[key]
        result: str | None = None
        if isinstance(expr, ast.Name):
            if expr.id in self.aliases:
                result = self.aliases[expr.id]
            elif expr.id in BUILTIN_NAMES and expr.id not in self.bound_names:
                result = expr.id
        elif isinstance(expr, ast.Attribute):
            base = self.qualname(expr.value)
            result = f"{base}.{expr.attr}" if base is not None else None
        self._qualnames[key] = result
        return result

    def call_name(self, call: ast.Call) -> str | None:
        return self.qualname(call.func)

    def calls_to(self, qualnames: Collection[str]) -> Iterator[tuple[ast.Call, str]]:
        for call in self.calls:
            name = self.call_name(call)
            if name is not None and name in qualnames:
                yield call, name

    def method_name(self, call: ast.Call) -> str | None:
        """The attribute called, for method calls on values we cannot resolve (`path.iterdir()`)."""
        return call.func.attr if isinstance(call.func, ast.Attribute) else None

    def is_wrapped_in(self, node: ast.AST, *funcs: str) -> bool:
        parent = self.parents.get(node)
        return isinstance(parent, ast.Call) and node in parent.args and self.call_name(parent) in funcs

    def local_function(self, call: ast.Call) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        if isinstance(call.func, ast.Name) and call.func.id not in self.aliases:
            return self.functions.get(call.func.id)
        return None

    def module_constant(self, name: str) -> ast.expr | None:
        """The value of a name assigned exactly once in the whole file (module constants)."""
        values = self.assigned.get(name)
        if values is None or len(values) != 1:
            return None
        return values[0]

    def string_value(self, expr: ast.AST) -> str | None:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value
        if isinstance(expr, ast.Name):
            value = self.module_constant(expr.id)
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
        return None

    def enclosing(self, node: ast.AST, *types: type[ast.AST]) -> ast.AST | None:
        current = self.parents.get(node)
        while current is not None and not isinstance(current, types):
            current = self.parents.get(current)
        return current

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = self.parents.get(current)
        return current

    def bound_to(self, qualified: str) -> str | None:
        """A module-level name bound to the module `qualified` (`np` for numpy), if any."""
        for name, target in self.top_aliases.items():
            if target == qualified:
                return name
        return None

    # -- positions -----------------------------------------------------------------------------------------

    def char_col(self, lineno: int, byte_col: int) -> int:
        """Code-point column for a 1-based line and a UTF-8 byte column."""
        index = lineno - 1
        if not 0 <= index < len(self.lines):
            return byte_col
        ascii_line = self._line_ascii.get(index)
        if ascii_line is None:
            ascii_line = self._line_ascii[index] = self.lines[index].isascii()
        return byte_col if ascii_line else byte_col_to_char(self.lines[index], byte_col)

    def start_of(self, node: ast.AST) -> Position:
        lineno: int = getattr(node, "lineno", 1)
        return Position(lineno - 1, self.char_col(lineno, getattr(node, "col_offset", 0)))

    def end_of(self, node: ast.AST) -> Position:
        end_line: int | None = getattr(node, "end_lineno", None)
        lineno: int = end_line if end_line is not None else getattr(node, "lineno", 1)
        end_col: int | None = getattr(node, "end_col_offset", None)
        col: int = end_col if end_col is not None else getattr(node, "col_offset", 0)
        return Position(lineno - 1, self.char_col(lineno, col))

    def range_of(self, node: ast.AST) -> Range:
        return Range(self.start_of(node), self.end_of(node))

    def first_line_range(self, node: ast.AST) -> Range:
        """The node's range cut at the end of its first line (a compound statement's header)."""
        start = self.start_of(node)
        end = self.end_of(node)
        if end.line != start.line:
            line = self.lines[start.line] if start.line < len(self.lines) else ""
            end = Position(start.line, len(line.rstrip()))
        return Range(start, end)

    def file_range(self) -> Range:
        first = self.lines[0] if self.lines else ""
        return Range.of(0, 0, 0, len(first))

    def source_of(self, node: ast.AST) -> str:
        start, end = self.start_of(node), self.end_of(node)
        if start.line == end.line:
            return self.lines[start.line][start.character : end.character]
        parts = [self.lines[start.line][start.character :]]
        parts.extend(self.lines[start.line + 1 : end.line])
        parts.append(self.lines[end.line][: end.character])
        return "\n".join(parts)

    def indent_of(self, stmt: ast.stmt) -> str | None:
        """The statement's indentation, or None when it does not start its line (`if x: stmt`)."""
        line = self.lines[stmt.lineno - 1]
        stripped = len(line) - len(line.lstrip(" \t"))
        if self.start_of(stmt).character != stripped:
            return None
        return line[:stripped]

    def import_insert_line(self) -> int:
        """Zero-based line after the leading docstring/imports block: where a module-level seed goes."""
        line = 0
        for index, stmt in enumerate(self.tree.body):
            is_doc = index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            is_import = isinstance(stmt, ast.Import | ast.ImportFrom)
            is_guarded_import = isinstance(stmt, ast.Try) and all(
                isinstance(s, ast.Import | ast.ImportFrom) for s in stmt.body
            )
            if not (is_doc or is_import or is_guarded_import):
                break
            line = stmt.end_lineno or stmt.lineno
        return line

    def insert_lines(self, line: int, text: str) -> TextEdit:
        """An edit inserting whole lines before zero-based `line` (at the end when past the last line)."""
        if line >= len(self.lines):
            last = len(self.lines) - 1
            end = Position(last, len(self.lines[last]))
            prefix = "" if self.lines[last] == "" else "\n"
            return TextEdit(self.relpath, Range(end, end), prefix + text)
        pos = Position(line, 0)
        return TextEdit(self.relpath, Range(pos, pos), text)

    def ensure_import(self, module: str) -> tuple[str, tuple[TextEdit, ...]]:
        """The local name for `module` and the edit that imports it when it is not imported yet."""
        name = self.bound_to(module)
        if name is not None:
            return name, ()
        plain = module.split(".")[0]
        local = module if plain not in self.bound_names and plain not in self.top_aliases else None
        if local is None:
            local = "_proctor_" + module.replace(".", "_")
            return local, (self.insert_lines(self.import_insert_line(), f"import {module} as {local}\n"),)
        return module, (self.insert_lines(self.import_insert_line(), f"import {module}\n"),)

    # -- diagnostics ---------------------------------------------------------------------------------------

    def diagnostic(
        self, rule: ModuleType, where: ast.AST | Range, message: str, fix: Fix | None = None
    ) -> Diagnostic:
        rng = where if isinstance(where, Range) else self.range_of(where)
        return Diagnostic(rule.CODE, rule.NAME, rule.SEVERITY, self.relpath, rng, message, fix)

    # -- files ---------------------------------------------------------------------------------------------

    @cached_property
    def directory(self) -> str:
        parent = PurePosixPath(self.relpath).parent.as_posix()
        return "" if parent == "." else parent


def _norm_dir(path: str) -> str:
    posix = PurePosixPath(path.replace("\\", "/")).as_posix().strip("/")
    return "" if posix == "." else posix


_SKIP_FIELDS = frozenset({"ctx", "op", "ops", "type_ignores"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def children(node: ast.AST) -> list[ast.AST]:
    """Child nodes like `ast.iter_child_nodes`, minus contexts and operators, and faster (fields cached per type)."""
    cls = type(node)
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in _SKIP_FIELDS)
    out: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(item for item in value if isinstance(item, ast.AST))
    return out


def walk(node: ast.AST) -> Iterator[ast.AST]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def walk_no_nested(nodes: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node under `nodes`, not descending into nested functions, lambdas or classes."""
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(children(node)):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                stack.append(child)


def int_constant(expr: ast.AST | None) -> int | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
        return expr.value
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = int_constant(expr.operand)
        return -inner if inner is not None else None
    return None


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw
    return None


def has_star_kwargs(call: ast.Call) -> bool:
    return any(kw.arg is None for kw in call.keywords)
