"""IN011 (flag): candidate Python code that patches the evaluator's scoring at run time.

Assignments or `setattr`/`delattr` on attributes of the modules the evaluator scores with (`sklearn`,
`numpy`, the suite's own modules), replacing `builtins.*` or `sys.stdout`, `sys.modules[...] =` and
`mock.patch` of those names. Pure: one file's text in, findings out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from core.integrity.findings import Finding, flag
from core.integrity.sys_path import dotted

SCORING_ROOTS = frozenset({"sklearn", "numpy", "scipy", "statistics", "math"})

_PATCH_CALLS = frozenset({"patch", "patch.object", "setattr"})
_SYS_STREAMS = frozenset({"sys.stdout", "sys.stderr", "sys.__stdout__", "sys.__stderr__", "sys.displayhook"})


class _PatchScanner(ast.NodeVisitor):
    def __init__(self, scoring: frozenset[str]) -> None:
        self.scoring = scoring
        self.aliases: dict[str, str] = {}
        self.hits: list[tuple[int, str]] = []

    def qualname(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            return "builtins" if node.id == "__builtins__" else None
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = dotted(node.func) or ""
            if func.rsplit(".", 1)[-1] == "import_module" and isinstance(node.args[0].value, str):
                return node.args[0].value
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            base = self.qualname(node.value)
            if base == "sys.modules" and isinstance(node.slice.value, str):
                return node.slice.value
        return None

    def sensitive(self, qualname: str | None) -> bool:
        if not qualname or "." not in qualname:
            return False
        root = qualname.split(".")[0]
        return root in self.scoring or qualname in _SYS_STREAMS or qualname.startswith("builtins.")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                self.aliases[top] = top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            for alias in node.names:
                self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def _target(self, target: ast.expr, line: int) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element, line)
        elif isinstance(target, ast.Attribute):
            qualname = self.qualname(target)
            if self.sensitive(qualname):
                self.hits.append((line, f"assigns `{qualname}`"))
        elif isinstance(target, ast.Subscript):
            base = self.qualname(target.value)
            if base == "sys.modules":
                self.hits.append((line, "assigns into `sys.modules`"))
            elif base and (base == "builtins" or (base.endswith(".__dict__") and self.sensitive(base))):
                self.hits.append((line, f"assigns into `{base}`"))

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._target(target, node.lineno)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target, node.lineno)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._target(node.target, node.lineno)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._target(target, node.lineno)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = dotted(node.func) or ""
        last = func.rsplit(".", 1)[-1]
        if (
            last in ("setattr", "delattr")
            and node.args
            and func in ("setattr", "delattr", "builtins.setattr")
        ):
            owner = self.qualname(node.args[0])
            attr = (
                node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else None
            )
            full = f"{owner}.{attr}" if owner and isinstance(attr, str) else (f"{owner}.?" if owner else None)
            if owner and (owner.split(".")[0] in self.scoring or owner == "builtins" or self.sensitive(full)):
                self.hits.append((node.lineno, f"{last}() on `{owner}`"))
        elif isinstance(node.func, ast.Attribute) and self.qualname(node.func.value) == "sys.modules":
            if node.func.attr in ("update", "setdefault", "__setitem__", "pop"):
                self.hits.append((node.lineno, f"`sys.modules.{node.func.attr}()`"))
        elif last in ("patch", "setattr", "object") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                if self.sensitive(first.value) or first.value.split(".")[0] in self.scoring:
                    self.hits.append((node.lineno, f"patches `{first.value}`"))
            elif last == "object" or (last == "setattr" and func != "setattr"):
                owner = self.qualname(first)
                if owner and (owner.split(".")[0] in self.scoring or owner in ("builtins", "sys")):
                    self.hits.append((node.lineno, f"patches `{owner}`"))
        self.generic_visit(node)


def patch_findings(path: str, source: str, scoring: frozenset[str]) -> Iterator[Finding]:
    """IN011 flags for one candidate Python file."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    scanner = _PatchScanner(scoring)
    scanner.visit(tree)
    seen: set[tuple[int, str]] = set()
    for line, what in scanner.hits:
        if (line, what) in seen:
            continue
        seen.add((line, what))
        yield flag("IN011", path, f"line {line}: {what} (patches scoring at run time)")
