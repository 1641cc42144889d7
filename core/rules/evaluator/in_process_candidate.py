"""## What it does
Flags an evaluator that imports or executes the candidate's code in its own process: importing a module
that lives in the workspace outside the suite (or the configured `entry_point`), `importlib.import_module`,
`runpy`, `spec_from_file_location` or `exec(open(...).read())`.

## Why is this bad?
Code imported into the evaluator's process can patch the metric (`sklearn.metrics.roc_auc_score = ...`),
read the labels from memory, or call `os._exit(0)` before the score is computed. Running the candidate as
a subprocess keeps the measurement out of its reach.

## Example
```python
from solution import predict
preds = predict(test_features)
```

Use instead:
```python
subprocess.run([sys.executable, "solution.py", "--input", inp, "--output", out], check=True, timeout=600)
preds = pd.read_csv(out)["prediction"]
```

## References
- README "The evaluator contract", item 1; README "Integrity: fingerprints, guard, registry"
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import PurePosixPath

from core.diagnostics import Diagnostic, Severity
from core.rules.evaluator.context import EvaluatorContext, register_fact
from core.rules.evaluator.paths import in_dir, resolve_path

CODE = "EV014"
NAME = "in-process-candidate"
SEVERITY = Severity.WARNING
FIX_TITLE = None

DYNAMIC = frozenset(
    {
        "importlib.import_module",
        "importlib.util.spec_from_file_location",
        "runpy.run_path",
        "runpy.run_module",
        "__import__",
    }
)
MESSAGE = "{what} runs candidate code inside the evaluator's process; call the candidate in a subprocess"


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    rule = sys.modules[__name__]
    entry = _entry_modules(ctx.lint.config.entry_point)
    for imp in ctx.imports:
        for module in _imported(imp):
            if _is_candidate(ctx, module, entry):
                yield ctx.diagnostic(rule, imp, MESSAGE.format(what=f"importing `{module}`"))
                break
        else:
            if (
                isinstance(imp, ast.ImportFrom)
                and imp.level >= 2
                and ctx.directory.count("/") < imp.level - 1
            ):
                yield ctx.diagnostic(
                    rule, imp, MESSAGE.format(what="a relative import from outside the suite")
                )
    for call, name in zip(ctx.calls, ctx.call_names, strict=True):
        if name in DYNAMIC:
            if call.args:
                target = ctx.string_value(
                    call.args[-1] if name.endswith("spec_from_file_location") else call.args[0]
                )
                if target is not None and _inside_suite(ctx, target, name):
                    continue
            yield ctx.diagnostic(rule, call, MESSAGE.format(what=f"`{name}()`"))
        elif name in ("exec", "execfile") and call.args and _reads_file(ctx, call.args[0]):
            yield ctx.diagnostic(rule, call, MESSAGE.format(what="`exec()` of a file"))


def _imported(imp: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(imp, ast.Import):
        return [a.name for a in imp.names]
    if imp.level == 0 and imp.module:
        return [imp.module]
    return []


def _entry_modules(entry_point: str) -> set[str]:
    """`solution.py`, `src/model.py:predict`, `pkg.mod:main`, `python solve.py` -> importable module names."""
    out: set[str] = set()
    for word in entry_point.replace(":", " ").split():
        if word in ("python", "python3") or word.startswith("-"):
            continue
        path = PurePosixPath(word.replace("\\", "/"))
        if path.suffix == ".py":
            out.add(path.stem)
            out.add(".".join(path.with_suffix("").parts))
        elif word.replace(".", "").replace("_", "").isalnum():
            out.add(word)
            out.add(word.split(".")[0])
        break
    return out


def _is_candidate(ctx: EvaluatorContext, module: str, entry: set[str]) -> bool:
    top = module.split(".")[0]
    if top in sys.stdlib_module_names:
        return False
    if module in entry or (top in entry and top not in _suite_siblings(ctx, top)):
        return True
    if ctx.lint.workspace is None and ctx.lint.exists is None:
        return False
    if _suite_siblings(ctx, top):
        return False
    for base in _search_dirs(ctx):
        for rel in (f"{top}.py", f"{top}/__init__.py"):
            path = f"{base}/{rel}" if base else rel
            if ctx.lint.path_exists(path):
                return not _in_suite(ctx, path)
    return False


def _suite_siblings(ctx: EvaluatorContext, top: str) -> set[str]:
    """`top` when it is a module next to the evaluator (Python puts the script's directory first on sys.path)."""
    if ctx.lint.workspace is None and ctx.lint.exists is None:
        return set()
    base = ctx.directory
    for rel in (f"{top}.py", f"{top}/__init__.py"):
        if ctx.lint.path_exists(f"{base}/{rel}" if base else rel):
            return {top}
    return set()


SYS_PATH_CALLS = ("sys.path.insert", "sys.path.append")


def _search_dirs(ctx: EvaluatorContext) -> list[str]:
    """The workspace root (the evaluator's working directory) plus literal `sys.path` additions."""
    found = ctx.fact("EV014.search_dirs", "")
    assert isinstance(found, tuple)
    return list(found)


def _compute_search_dirs(ctx: EvaluatorContext, _key: str) -> tuple[str, ...]:
    dirs = [""]
    aliased = any(target in SYS_PATH_CALLS for target in ctx.aliases.values())
    for call in ctx.calls if aliased else ctx.method_calls("insert", "append"):
        name = ctx.call_name(call)
        if name in SYS_PATH_CALLS and call.args:
            value = resolve_path(ctx, call.args[-1])
            if value.known and not value.path.startswith(("/", "..")):
                dirs.append(value.path)
    return tuple(dirs)


register_fact("EV014.search_dirs", _compute_search_dirs)


def _in_suite(ctx: EvaluatorContext, path: str) -> bool:
    return bool(ctx.suite) and (path == ctx.suite or path.startswith(ctx.suite + "/"))


def _inside_suite(ctx: EvaluatorContext, target: str, name: str) -> bool:
    if name in ("runpy.run_path", "importlib.util.spec_from_file_location"):
        return in_dir(resolve_path(ctx, ast.Constant(target)), ctx.suite)
    return target.split(".")[0] in _suite_siblings(ctx, target.split(".")[0])


def _reads_file(ctx: EvaluatorContext, expr: ast.expr) -> bool:
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            name = ctx.call_name(node)
            if name == "open" or (isinstance(node.func, ast.Attribute) and node.func.attr == "read_text"):
                return True
    return False
