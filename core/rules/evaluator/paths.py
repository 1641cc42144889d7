"""Static path resolution and file-write detection (EV005, EV006, EV015, EV016).

Path expressions are resolved relative to the workspace root, where the evaluator runs:
`Path(__file__).parent / "result.json"` in `kapso_evaluation/evaluate.py` is `kapso_evaluation/result.json`.
When part of a path is only known at run time, the literal tail is kept (`f"{out}/result.json"` ->
unknown directory, tail `/result.json`) so rules can still give the benefit of the doubt.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from core.rules.evaluator.context import EvaluatorContext

PATH_CTORS = frozenset(
    {
        "pathlib.Path",
        "pathlib.PurePath",
        "pathlib.PosixPath",
        "pathlib.PurePosixPath",
        "os.fspath",
        "str",
        "os.path.abspath",
        "os.path.realpath",
        "os.path.normpath",
        "os.path.expanduser",
    }
)
PATH_SAME_METHODS = frozenset({"resolve", "absolute", "expanduser"})
PATH_RENAMES = frozenset({"with_name", "with_suffix", "with_stem"})
MOVE_CALLS = frozenset(
    {"os.replace", "os.rename", "shutil.move", "shutil.copy", "shutil.copyfile", "shutil.copy2"}
)
WRITE_WORDS = ("write", "dump", "save", "to_json", "to_csv", "to_parquet", "savetxt")


@dataclass(frozen=True)
class PathValue:
    """`path` is workspace-relative and exact when `known`; otherwise it is the literal tail."""

    known: bool
    path: str

    def endswith_name(self, name: str) -> bool:
        return (
            self.path == name
            or self.path.endswith("/" + name)
            or (not self.known and self.path.endswith(name))
        )


def _join(a: PathValue, b: PathValue) -> PathValue:
    if not b.known:
        return b
    if b.path.startswith("/"):
        return b
    if not a.known:
        return PathValue(False, a.path.rstrip("/") + "/" + b.path)
    joined = posixpath.join(a.path, b.path) if a.path else b.path
    return PathValue(True, _norm(joined))


def _norm(path: str) -> str:
    if not path:
        return ""
    normed = posixpath.normpath(path)
    return "" if normed == "." else normed


def _dirname(value: PathValue) -> PathValue:
    if not value.known:
        return PathValue(False, "")
    if value.path in ("", "."):
        return PathValue(True, "..")
    if value.path == ".." or value.path.endswith("/.."):
        return PathValue(True, value.path + "/..")
    return PathValue(True, _norm(posixpath.dirname(value.path)))


UNKNOWN = PathValue(False, "")


def resolve_path(ctx: EvaluatorContext, expr: ast.AST | None, depth: int = 0) -> PathValue:
    """Best static value of a path expression (see module docstring)."""
    if expr is None or depth > 12:
        return UNKNOWN
    resolver = _RESOLVERS.get(type(expr))
    return resolver(ctx, expr, depth) if resolver is not None else UNKNOWN


def _constant_path(ctx: EvaluatorContext, expr: ast.Constant, depth: int) -> PathValue:
    if not isinstance(expr.value, str):
        return UNKNOWN
    return PathValue(True, expr.value if expr.value.startswith("/") else _norm(expr.value))


def _name_path(ctx: EvaluatorContext, expr: ast.Name, depth: int) -> PathValue:
    if expr.id == "__file__":
        return PathValue(True, ctx.relpath)
    bound = ctx.value_of(expr)
    return resolve_path(ctx, bound, depth + 1) if bound is not None else UNKNOWN


def _attribute_path(ctx: EvaluatorContext, expr: ast.Attribute, depth: int) -> PathValue:
    return _dirname(resolve_path(ctx, expr.value, depth + 1)) if expr.attr == "parent" else UNKNOWN


def _binop_path(ctx: EvaluatorContext, expr: ast.BinOp, depth: int) -> PathValue:
    """`base / "part"` joins; `prefix + "suffix"` concatenates (a known suffix survives an unknown prefix)."""
    if isinstance(expr.op, ast.Div):
        return _join(resolve_path(ctx, expr.left, depth + 1), resolve_path(ctx, expr.right, depth + 1))
    if not isinstance(expr.op, ast.Add):
        return UNKNOWN
    left = resolve_path(ctx, expr.left, depth + 1)
    right = resolve_path(ctx, expr.right, depth + 1)
    if left.known and right.known:
        return PathValue(True, _norm(left.path + right.path))
    return PathValue(False, right.path) if right.known else right


def _parents_path(ctx: EvaluatorContext, expr: ast.Subscript, depth: int) -> PathValue:
    """`path.parents[n]`: the path n + 1 levels up."""
    base = expr.value
    if not (
        isinstance(base, ast.Attribute) and base.attr == "parents" and isinstance(expr.slice, ast.Constant)
    ):
        return UNKNOWN
    level = expr.slice.value
    if not isinstance(level, int) or isinstance(level, bool) or level < 0:
        return UNKNOWN
    value = resolve_path(ctx, base.value, depth + 1)
    for _ in range(level + 1):
        value = _dirname(value)
    return value


def _fstring(ctx: EvaluatorContext, expr: ast.JoinedStr, depth: int) -> PathValue:
    text = ""
    known = True
    for value in expr.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            text += value.value
        elif isinstance(value, ast.FormattedValue):
            inner = resolve_path(ctx, value.value, depth + 1)
            if inner.known and value.format_spec is None:
                text += inner.path
            else:
                known = False
                text = ""
    if known:
        return PathValue(True, text if text.startswith("/") else _norm(text))
    return PathValue(False, text)


def _call_path(ctx: EvaluatorContext, call: ast.Call, depth: int) -> PathValue:
    name = ctx.call_name(call)
    if name in ("os.getcwd", "pathlib.Path.cwd"):
        return PathValue(True, "")
    if name in PATH_CTORS or name == "os.path.join":
        if not call.args:
            return PathValue(True, "") if name in PATH_CTORS else UNKNOWN
        return _joined(ctx, resolve_path(ctx, call.args[0], depth + 1), call.args[1:], depth)
    if name == "os.path.dirname" and call.args:
        return _dirname(resolve_path(ctx, call.args[0], depth + 1))
    if isinstance(call.func, ast.Attribute):
        return _method_path(ctx, call, call.func, depth)
    return UNKNOWN


def _joined(ctx: EvaluatorContext, base: PathValue, parts: Sequence[ast.expr], depth: int) -> PathValue:
    """`base` joined with each part in turn (`Path(a, b)`, `os.path.join(a, b)`, `p.joinpath(a, b)`)."""
    value = base
    for part in parts:
        value = _join(value, resolve_path(ctx, part, depth + 1))
    return value


def _method_path(ctx: EvaluatorContext, call: ast.Call, func: ast.Attribute, depth: int) -> PathValue:
    """A path method: `.resolve()` and kin keep the path, `.with_name(x)` and kin rename, `.joinpath()` joins."""
    method = func.attr
    if method in PATH_SAME_METHODS and not call.args:
        return resolve_path(ctx, func.value, depth + 1)
    if method in PATH_RENAMES and len(call.args) == 1 and not call.keywords:
        return _rename(
            method, resolve_path(ctx, func.value, depth + 1), resolve_path(ctx, call.args[0], depth + 1)
        )
    if method == "joinpath":
        return _joined(ctx, resolve_path(ctx, func.value, depth + 1), call.args, depth)
    return UNKNOWN


_Resolver = Callable[[EvaluatorContext, Any, int], PathValue]
_RESOLVERS: dict[type[ast.AST], _Resolver] = {
    ast.Constant: _constant_path,
    ast.Name: _name_path,
    ast.Attribute: _attribute_path,
    ast.Subscript: _parents_path,
    ast.BinOp: _binop_path,
    ast.JoinedStr: _fstring,
    ast.Call: _call_path,
}
"""How each kind of expression resolves; anything else is UNKNOWN."""


def _rename(method: str, base: PathValue, part: PathValue) -> PathValue:
    """`base.with_name(part)` / `.with_suffix(part)` / `.with_stem(part)` (pathlib semantics)."""
    if not part.known or part.path.startswith("/") or "/" in part.path:
        return UNKNOWN
    if method == "with_name":
        return _join(_dirname(base), part) if base.known else PathValue(False, "/" + part.path)
    if not base.path:
        return UNKNOWN
    head, name = posixpath.split(base.path)
    stem, suffix = posixpath.splitext(name)
    renamed = stem + part.path if method == "with_suffix" else part.path + suffix
    return PathValue(base.known, posixpath.join(head, renamed) if head else renamed)


def in_dir(value: PathValue, directory: str) -> bool:
    """The known path lies strictly inside the workspace-relative `directory`."""
    if not value.known or value.path.startswith("/"):
        return False
    if not directory:
        return not value.path.startswith("..")
    return value.path.startswith(directory.rstrip("/") + "/")


# -- writes ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """A call that writes the file at `target` (`payload` is what is written, when it is visible)."""

    call: ast.Call
    target: PathValue
    payload: ast.expr | None = None
    through_handle: bool = False  # `fh.write(...)` on a handle whose `open()` is itself a write


def open_mode(ctx: EvaluatorContext, call: ast.Call, mode_index: int) -> str:
    mode: ast.expr | None = call.args[mode_index] if len(call.args) > mode_index else None
    for kw in call.keywords:
        if kw.arg == "mode":
            mode = kw.value
    if mode is None:
        return "r"
    text = ctx.string_value(mode)
    return text if text is not None else "?"


def _is_write_mode(mode: str) -> bool:
    return mode == "?" or any(c in mode for c in "wax+")


_OPENERS = ("open", "io.open", "codecs.open")


def opened_for_write(ctx: EvaluatorContext, expr: ast.AST) -> PathValue | None:
    """The path when `expr` is `open(P, "w")` / `P.open("w")` (or a name bound to one)."""
    if isinstance(expr, ast.Name):
        binding = ctx.binding(expr)
        if binding is None or binding.kind not in ("value", "with") or binding.value is None:
            return None
        return opened_for_write(ctx, binding.value)
    if not isinstance(expr, ast.Call):
        return None
    name = ctx.call_name(expr)
    if name in _OPENERS and expr.args:
        return resolve_path(ctx, expr.args[0]) if _is_write_mode(open_mode(ctx, expr, 1)) else None
    if isinstance(expr.func, ast.Attribute) and expr.func.attr == "open" and name is None:
        return resolve_path(ctx, expr.func.value) if _is_write_mode(open_mode(ctx, expr, 0)) else None
    return None


def writes(ctx: EvaluatorContext) -> list[Write]:
    """Every file write, in document order (gathered from the per-chunk passes when they ran)."""
    memo = ctx.memo.get("writes")
    if isinstance(memo, list):
        return memo
    facts = ctx.facts("writes")
    found = [w for w in facts if isinstance(w, Write)] if facts is not None else list(_find_writes(ctx))
    ctx.memo["writes"] = found
    return found


def _find_writes(ctx: EvaluatorContext) -> Iterator[Write]:
    for call, name in zip(ctx.calls, ctx.call_names, strict=True):
        found = _write_of(ctx, call, name)
        if found is not None:
            yield found


def _write_of(ctx: EvaluatorContext, call: ast.Call, name: str | None) -> Write | None:
    """The file write `call` (named `name`) makes: open for writing, `write_text`, a move, `json.dump` or
    `.write` into an open handle, else a call whose name says it writes (`save`, `to_csv`...)."""
    method = call.func.attr if isinstance(call.func, ast.Attribute) else None
    target = opened_for_write(ctx, call) if name in _OPENERS or method == "open" else None
    if target is not None:
        return Write(call, target)
    if method in ("write_text", "write_bytes") and name is None:
        assert isinstance(call.func, ast.Attribute)
        payload = _dumps_payload(ctx, call.args[0] if call.args else None)
        return Write(call, resolve_path(ctx, call.func.value), payload)
    if name in MOVE_CALLS and len(call.args) >= 2:
        return Write(call, resolve_path(ctx, call.args[1]))
    if name in ("json.dump",) and len(call.args) >= 2:
        inner = opened_for_write(ctx, call.args[1])
        return Write(call, inner, call.args[0], through_handle=True) if inner is not None else None
    if method == "write" and name is None and call.args:
        assert isinstance(call.func, ast.Attribute)
        inner = opened_for_write(ctx, call.func.value)
        if inner is None:
            return None
        return Write(call, inner, _dumps_payload(ctx, call.args[0]), through_handle=True)
    return _named_write(ctx, call, (name or method or "").rsplit(".", 1)[-1].lower())


def _named_write(ctx: EvaluatorContext, call: ast.Call, label: str) -> Write | None:
    """`df.to_csv("out.csv")`, `save(model, path)`: the first argument that looks like a file path."""
    if not _writes_by_name(label):
        return None
    for index, arg in enumerate(call.args):
        value = resolve_path(ctx, arg)
        if value.path and ((value.known and "." in posixpath.basename(value.path)) or not value.known):
            payload = call.args[index + 1] if index + 1 < len(call.args) else None
            return Write(call, value, payload)
    return None


@lru_cache(maxsize=4096)
def _writes_by_name(label: str) -> bool:
    """A call of this (lower-case) name writes a file (decided once per name: `len`, `get`... repeat)."""
    return any(word in label for word in WRITE_WORDS) and label not in ("write", "dump", "dumps")


def _dumps_payload(ctx: EvaluatorContext, expr: ast.expr | None) -> ast.expr | None:
    if isinstance(expr, ast.Call) and ctx.call_name(expr) == "json.dumps" and expr.args:
        return expr.args[0]
    if isinstance(expr, ast.Name):
        value = ctx.value_of(expr)
        if value is not None:
            return _dumps_payload(ctx, value)
    return None


def result_json_path(ctx: EvaluatorContext) -> str:
    return f"{ctx.suite}/result.json" if ctx.suite else "result.json"


def is_result_json(ctx: EvaluatorContext, value: PathValue) -> bool:
    """The write goes to `<suite>/result.json` (or to some result.json whose directory is only known at run time)."""
    if value.known:
        return value.path == result_json_path(ctx)
    return value.path.endswith("result.json")
