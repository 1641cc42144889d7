"""IN007 and IN011 hooks: candidate files that would run inside the evaluator's process.

A candidate file is a hook when it sits in a directory on the evaluator's modelled `sys.path` (`sys_path`)
and either is a start-up hook (`sitecustomize`, `usercustomize`, `*.pth`, `conftest.py` and pytest's
configuration under pytest) or provides a module that comes before, and so replaces, a module the evaluator
imports: stdlib, third-party or the suite's own. The same files where they cannot reach the evaluator are
IN011 flags. Which modules are stdlib or installed is asked of a `ModuleProvider` (`modules`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.integrity.classify import module_name, source_suffix
from core.integrity.findings import Finding, flag, reject
from core.integrity.modules import INSTALLED, ModuleProvider
from core.integrity.sys_path import EvaluatorModel

# Libraries evaluators score with: a candidate copy is a substitute even where the real one is not installed
# (in Proctor's environment; the evaluator's may differ), so precedence on sys.path cannot clear it.
KNOWN_LIBRARIES = frozenset(
    {
        "catboost", "cv2", "datasets", "evaluate", "jax", "joblib", "lightgbm", "matplotlib", "nltk", "numpy",
        "openai", "pandas", "PIL", "polars", "pyarrow", "requests", "rouge_score", "sacrebleu", "scipy",
        "sentence_transformers", "sklearn", "statsmodels", "sympy", "tensorflow", "tiktoken", "torch",
        "torchmetrics", "tqdm", "transformers", "xgboost", "yaml",
    }
)  # fmt: skip
STARTUP_HOOKS = frozenset({"sitecustomize", "usercustomize"})
PYTEST_FILES = frozenset({"pytest.ini", ".pytest.ini"})
PYTEST_SECTION_FILES = {
    "tox.ini": "pytest",
    "setup.cfg": "tool:pytest",
    "pyproject.toml": "tool.pytest.ini_options",
}

Reader = Callable[[str], bytes | None]


def _shadowed(
    model: EvaluatorModel, modules: ModuleProvider, position: int, directory: str, name: str
) -> str | None:
    """What the candidate's module `name` in slot `position` would replace, if the evaluator imports it."""
    if model.suite_package == (directory, name):
        return f"the suite package `{name}`"
    for slot in model.slots[position + 1 :]:
        local = slot.kind == "dir" and slot.trusted and name in model.suite_modules.get(slot.rel, frozenset())
        if local and name in model.imports:
            return f"the suite's module `{name}` ({slot.rel or '.'})"
        installed = (slot.kind == "stdlib" and modules.stdlib(name)) or (
            slot.kind == "site" and modules.third_party(name)
        )
        if installed and (name in model.imports or name in modules.import_closure(model.imports)):
            kind = "standard-library" if slot.kind == "stdlib" else "installed"
            return f"the {kind} module `{name}`"
    known = name in KNOWN_LIBRARIES and name in model.imports
    if known and not modules.third_party(name) and not modules.stdlib(name):
        return f"the library `{name}` the evaluator imports"
    return None


def _would_shadow(model: EvaluatorModel, modules: ModuleProvider, name: str) -> str | None:
    if name not in model.imports:
        return None
    if modules.stdlib(name):
        return f"the standard-library module `{name}`"
    if modules.third_party(name):
        return f"the installed module `{name}`"
    if any(name in names for names in model.suite_modules.values()):
        return f"the suite's module `{name}`"
    return None


def _section(text: str, section: str) -> str:
    """The raw lines of one ini/toml section (`[pytest]`, `[tool.pytest.ini_options]`), for comparison."""
    lines = text.splitlines()
    out: list[str] = []
    inside = False
    for line in lines:
        header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]\s*$", line)
        if header:
            inside = header.group(1).replace('"', "").replace(" ", "") == section
            if inside:
                out.append(line.strip())
            continue
        if inside:
            out.append(line.rstrip())
    return "\n".join(out)


def hook_findings(
    model: EvaluatorModel,
    provided: dict[str, str],
    read_old: Reader,
    read_new: Reader,
    new_kind: Callable[[str], str | None],
    modules: ModuleProvider = INSTALLED,
) -> list[Finding]:
    """IN007 rejections and IN011 flags for candidate-provided paths outside the suite.

    `provided` maps each added or changed path (outside the suite) to its candidate-side kind.
    """
    findings: list[Finding] = []
    candidates: dict[tuple[str, str], str] = {}
    for path, kind in provided.items():
        found = _startup_findings(model, path, read_old, read_new)
        if found is not None:
            findings.extend(found)
        else:
            _module_candidates(model, modules, path, kind, new_kind, candidates)
    findings.extend(_shadow_findings(model, modules, candidates))
    return findings


def _startup_findings(
    model: EvaluatorModel, path: str, read_old: Reader, read_new: Reader
) -> list[Finding] | None:
    """Findings for a start-up hook or pytest file; None when `path` is neither (it may provide a module)."""
    directory, _, name = path.rpartition("/")
    stem = module_name(name)
    parent, _, package = directory.rpartition("/")
    if stem == "__init__" and package in STARTUP_HOOKS:
        directory, stem = parent, package  # a `sitecustomize/` package is imported just like the module
    if stem in STARTUP_HOOKS or source_suffix(name) == ".pth":
        what = "a start-up hook (`site` runs it)" if stem in STARTUP_HOOKS else "a `.pth` start-up file"
        if model.position(directory) is not None:
            where = directory or "the workspace root"
            return [reject("IN007", path, f"{what} in {where}, which is on the evaluator's sys.path")]
        return [
            flag("IN011", path, f"{what}; not on the evaluator's sys.path here, but it runs wherever it is")
        ]
    if name == "conftest.py":
        if model.pytest:
            return [
                reject("IN007", path, "a pytest conftest.py: the evaluator runs pytest, which imports it")
            ]
        return [flag("IN011", path, "a pytest conftest.py (the evaluator does not run pytest)")]
    if model.pytest and path in PYTEST_FILES:
        return [reject("IN007", path, "pytest configuration changed: the evaluator runs pytest")]
    if model.pytest and path in PYTEST_SECTION_FILES:
        section = PYTEST_SECTION_FILES[path]
        old = (read_old(path) or b"").decode("utf-8", "replace")
        new = (read_new(path) or b"").decode("utf-8", "replace")
        if _section(old, section) == _section(new, section):
            return []
        return [reject("IN007", path, f"pytest configuration [{section}] changed: the evaluator runs pytest")]
    return None


def _module_candidates(
    model: EvaluatorModel,
    modules: ModuleProvider,
    path: str,
    kind: str,
    new_kind: Callable[[str], str | None],
    out: dict[tuple[str, str], str],
) -> None:
    """Record in `out` each (directory, module name) that `path` provides: itself, and the packages above it
    (a package needs its `__init__.py`, except a known library the evaluator's environment lacks)."""
    directory, _, name = path.rpartition("/")
    stem = module_name(name)
    if kind in ("file", "symlink") and stem:
        out.setdefault((directory, stem), path)
    parts = path.split("/")
    for depth in range(len(parts) - 1):
        package = parts[depth]
        if not package.isidentifier():
            break
        base = "/".join(parts[:depth])
        if model.position(base) is not None or base == "":
            init = "/".join([*parts[: depth + 1], "__init__.py"])
            namespace_substitute = package in KNOWN_LIBRARIES and not modules.third_party(package)
            if new_kind(init) == "file" or namespace_substitute:
                out.setdefault((base, package), path)


def _shadow_findings(
    model: EvaluatorModel, modules: ModuleProvider, candidates: dict[tuple[str, str], str]
) -> list[Finding]:
    findings = []
    for (directory, name), path in sorted(candidates.items()):
        position = model.position(directory)
        if position is not None:
            victim = _shadowed(model, modules, position, directory, name)
            if victim:
                findings.append(
                    reject(
                        "IN007",
                        path,
                        f"module `{name}` in {directory or 'the workspace root'} comes first on the evaluator's "
                        f"sys.path and replaces {victim}",
                    )
                )
        elif directory == "":
            victim = _would_shadow(model, modules, name)
            if victim:
                findings.append(
                    flag(
                        "IN011",
                        path,
                        f"module `{name}` would replace {victim} if the workspace root were on sys.path",
                    )
                )
    return findings
