"""AST helpers every part of the analysis uses: a fast child list and a parse that returns its error."""

from __future__ import annotations

import ast
import warnings

__all__ = ["children", "parse"]

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


def parse(text: str) -> ast.Module | SyntaxError | ValueError:
    """The module, or the error that stops it from parsing (warnings such as bad escapes are ignored)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError) as exc:
        return ValueError(str(exc) or type(exc).__name__)
