"""Whether a fixed text is no worse than the original: the check every autofix passes before it is written.

A fix is refused when the result no longer parses, when it uses a module-level name before the import that
binds it (a seed above `import numpy as np`), or when linting the result finds something the original did
not (counted per code, so a finding that only moved is not new). `core.check` hands `refusal` to
`core.fixes.apply_fixes` as its verifier.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter

from core.lint import lint_document
from core.rules.base import DocumentKind, LintContext

__all__ = ["names_used_before_import", "refusal"]

_PYTHON = (DocumentKind.EVALUATOR, DocumentKind.SUITE_PYTHON)
_TEMPLATE_BLANKS = frozenset({"BR002", "BR003", "BR004", "BR005", "BR006"})


def _parse(text: str) -> ast.Module | str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except SyntaxError as exc:
        return f"the result would not parse (line {exc.lineno}: {exc.msg})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"the result would not parse ({exc})"


def _module_level_loads(stmt: ast.stmt) -> set[str]:
    """Names read when the statement runs at import time (not inside function bodies or lambdas)."""
    found: set[str] = set()
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            stack.extend(node.decorator_list)
            stack.extend(d for d in node.args.defaults if d is not None)
            stack.extend(d for d in node.args.kw_defaults if d is not None)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _imported(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, ast.Import):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    if isinstance(stmt, ast.ImportFrom):
        return {a.asname or a.name for a in stmt.names if a.name != "*"}
    return set()


def names_used_before_import(tree: ast.Module) -> set[str]:
    """Module-level names read at import time above the first top-level import that binds them."""
    first_import: dict[str, int] = {}
    for index, stmt in enumerate(tree.body):
        for name in _imported(stmt):
            first_import.setdefault(name, index)
    early: set[str] = set()
    for index, stmt in enumerate(tree.body):
        early.update(n for n in _module_level_loads(stmt) if first_import.get(n, -1) > index)
    return early


def refusal(relpath: str, kind: DocumentKind, before: str, after: str, ctx: LintContext) -> str | None:
    """Why `after` (a fixed `before`) must not be written, or None when it is no worse."""
    if kind in _PYTHON:
        new_tree = _parse(after)
        if isinstance(new_tree, str):
            return new_tree
        old_tree = _parse(before)
        old_early = names_used_before_import(old_tree) if isinstance(old_tree, ast.Module) else set()
        early = sorted(names_used_before_import(new_tree) - old_early)
        if early:
            return f"`{early[0]}` would be used before its import"
    old = Counter(d.code for d in lint_document(relpath, before, kind, ctx, incremental=False))
    new = Counter(d.code for d in lint_document(relpath, after, kind, ctx, incremental=False))
    added = sorted(code for code in new if new[code] > old[code])
    if old["BR001"] and not new["BR001"]:
        # BR001's template replaces "no protocol" by a protocol whose blanks (BR002-BR006) are still open.
        added = [code for code in added if code not in _TEMPLATE_BLANKS]
    if added:
        return f"the result would add {', '.join(added)}"
    return None
