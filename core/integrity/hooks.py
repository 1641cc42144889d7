"""IN007 and IN011: candidate code that would run inside the evaluator's process, or patch its scoring.

The evaluator's effective `sys.path` is modelled from the command (`python X.py` puts the script's directory
first, `python -m` and `-c` the workspace root, `PYTHONPATH=` entries follow, `-I`/`-P` drop the first entry)
and from what the baseline suite does to `sys.path` (`insert`, `append`, `site.addsitedir`, slice
assignment), with the paths it adds resolved statically where possible and taken to be the workspace root
otherwise. A candidate file is a hook when it sits in a directory on that path and either is a start-up hook
(`sitecustomize`, `usercustomize`, `*.pth`, `conftest.py` under pytest) or provides a module that comes
before, and so replaces, a module the evaluator imports: stdlib, third-party or the suite's own.
"""

from __future__ import annotations

import ast
import json
import os
import posixpath
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.machinery import PathFinder
from typing import Literal

from core.integrity.classify import module_name, source_suffix, within
from core.integrity.findings import Finding, flag, reject

SCORING_ROOTS = frozenset({"sklearn", "numpy", "scipy", "statistics", "math"})
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
_OUTSIDE = "\0outside"  # a path outside the workspace (absolute, or `..` past the root)


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


# ------------------------------------------------------------------------------------------ the command


@dataclass
class _Command:
    path0: str | None = None  # workspace-relative dir, or None when nothing is prepended
    pythonpath: list[str] = field(default_factory=list)
    pytest: bool = False
    script: str | None = None
    known: bool = True


_WRAPPERS_WITH_RUN = frozenset({"uv", "poetry", "pipenv", "hatch", "pdm", "rye", "conda"})
_PLAIN_WRAPPERS = frozenset({"exec", "nice", "nohup", "stdbuf", "time", "timeout", "xvfb-run", "command"})
_OPTS_WITH_ARG = frozenset(
    {"--with", "-p", "--python", "--project", "--directory", "--env-file", "-n", "--name"}
)
_PY_OPTS_WITH_ARG = frozenset("WXQ")


def _norm_rel(path: str) -> str:
    if path.startswith("/"):
        return _OUTSIDE
    norm = posixpath.normpath(path)
    if norm == ".":
        return ""
    if norm == ".." or norm.startswith("../"):
        return _OUTSIDE
    return norm


def analyse_command(command: str) -> _Command:
    """Where the evaluator's interpreter starts looking for modules, from the command line alone."""
    try:
        words = shlex.split(command)
    except ValueError:
        return _Command(path0="", known=False)
    env: dict[str, str] = {}
    index = 0
    while index < len(words):
        word = words[index]
        base = posixpath.basename(word)
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            key, _, value = word.partition("=")
            env[key] = value
            index += 1
        elif base == "env":
            index += 1
            while index < len(words) and words[index].startswith("-"):
                index += 2 if words[index] in ("-u", "-C", "--unset", "--chdir") else 1
        elif base in _WRAPPERS_WITH_RUN and index + 1 < len(words) and words[index + 1] == "run":
            index += 2
            while index < len(words) and words[index].startswith("-"):
                index += 2 if words[index] in _OPTS_WITH_ARG else 1
        elif base in _PLAIN_WRAPPERS:
            index += 1
            while index < len(words) and (words[index].startswith("-") or re.match(r"^\d", words[index])):
                index += 1
        else:
            break
    result = _Command()
    ignore_env = False
    if index >= len(words):
        return _Command(path0="", known=False)
    prog = posixpath.basename(words[index])
    args = words[index + 1 :]
    if re.match(r"^(python|pypy)[0-9.]*$", prog):
        safe_path = False
        position = 0
        while position < len(args):
            arg = args[position]
            if arg == "--":
                position += 1
                break
            if arg.startswith("--"):
                position += 1
                continue
            if arg.startswith("-") and len(arg) > 1:
                letters = arg[1:]
                for offset, letter in enumerate(letters):
                    if letter in "IP":
                        safe_path = True
                    if letter in "IE":
                        ignore_env = True
                    if letter in "mc":
                        rest = letters[offset + 1 :] or (
                            args[position + 1] if position + 1 < len(args) else ""
                        )
                        result.path0 = None if safe_path else ""
                        result.pytest = letter == "m" and rest.split(".")[0] in ("pytest", "py")
                        position = len(args)
                        break
                    if letter in _PY_OPTS_WITH_ARG:
                        if offset == len(letters) - 1:
                            position += 1
                        break
                position += 1
                continue
            result.script = arg
            directory = _norm_rel(posixpath.dirname(arg))
            result.path0 = None if safe_path or directory == _OUTSIDE else directory
            break
        else:
            result.path0 = None if safe_path else ""
    elif prog in ("pytest", "py.test"):
        # pytest's default `prepend` import mode puts test roots (up to the workspace root) on sys.path.
        result.pytest = True
        result.path0 = ""
    elif prog.endswith(".py"):
        result.script = words[index]
        directory = _norm_rel(posixpath.dirname(words[index]))
        result.path0 = None if directory == _OUTSIDE else directory
    else:
        result.path0 = ""
        result.known = False
    if not ignore_env and env.get("PYTHONPATH"):
        result.pythonpath = [
            rel for rel in (_norm_rel(p or ".") for p in env["PYTHONPATH"].split(":")) if rel != _OUTSIDE
        ]
    return result


# ------------------------------------------------------------------------------ static path evaluation


class _PathEval:
    """Evaluates the usual spellings of a path (`Path(__file__).resolve().parents[1] / "src"`, `os.path...`)
    to a workspace-relative directory; None when the expression is not understood."""

    def __init__(self, file_rel: str) -> None:
        self.file_rel = file_rel
        self.names: dict[str, str] = {}

    def eval(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return _norm_rel(node.value or ".")
        if isinstance(node, ast.Name):
            if node.id == "__file__":
                return self.file_rel
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute):
            return self._parent(self.eval(node.value)) if node.attr == "parent" else None
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "parents"
        ):
            base = self.eval(node.value.value)
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
                for _ in range(node.slice.value + 1):
                    base = self._parent(base)
                return base
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = self.eval(node.left), self.eval(node.right)
            return self._join(left, right)
        if isinstance(node, ast.Call):
            func = _dotted(node.func)
            args = node.args
            if func is None:
                if isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "resolve",
                    "absolute",
                    "expanduser",
                ):
                    return self.eval(node.func.value)
                return None
            last = func.rsplit(".", 1)[-1]
            if last in ("getcwd", "cwd") and not args:
                return ""
            if last == "dirname" and len(args) == 1:
                return self._parent(self.eval(args[0]))
            if last in ("abspath", "realpath", "normpath", "fspath", "str", "Path", "PurePath", "PosixPath"):
                return self.eval(args[0]) if len(args) == 1 else ("" if not args and last != "str" else None)
            if last in ("resolve", "absolute", "expanduser") and isinstance(node.func, ast.Attribute):
                return self.eval(node.func.value)
            if last == "join" and args:
                result = self.eval(args[0])
                for arg in args[1:]:
                    result = self._join(result, self.eval(arg))
                return result
        return None

    @staticmethod
    def _parent(path: str | None) -> str | None:
        if path is None or path == _OUTSIDE:
            return path
        if path == "":
            return _OUTSIDE
        return posixpath.dirname(path)

    @staticmethod
    def _join(left: str | None, right: str | None) -> str | None:
        if left is None or right is None:
            return None
        if left == _OUTSIDE or right == _OUTSIDE:
            return _OUTSIDE
        return _norm_rel(posixpath.join(left, right) if left else right)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


@dataclass(frozen=True)
class _PathEdit:
    where: Literal["front", "index", "end"]
    index: int
    rel: str | None  # None: not understood (taken as the workspace root)
    site: bool = False


def _path_edits(source: str, file_rel: str) -> list[_PathEdit]:
    """What one suite file does to sys.path, in source order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    evaluator = _PathEval(file_rel)
    sys_names = {"sys"}
    path_names: set[str] = set()
    edits: list[_PathEdit] = []

    def is_sys_path(node: ast.expr) -> bool:
        dotted = _dotted(node)
        if dotted is None:
            return False
        head, _, rest = dotted.partition(".")
        return (head in sys_names and rest == "path") or (dotted in path_names)

    def values(node: ast.expr) -> list[ast.expr]:
        if isinstance(node, (ast.List, ast.Tuple)):
            return list(node.elts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return [v for side in (node.left, node.right) if not is_sys_path(side) for v in values(side)]
        return [node]

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "sys":
                    sys_names.add(alias.asname or "sys")
        elif isinstance(node, ast.ImportFrom) and node.module == "sys":
            for alias in node.names:
                if alias.name == "path":
                    path_names.add(alias.asname or "path")
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = evaluator.eval(node.value)
            if value is not None:
                evaluator.names[node.targets[0].id] = value
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target, method = node.func.value, node.func.attr
            if is_sys_path(target) and method == "insert" and len(node.args) == 2:
                position = node.args[0]
                index = (
                    position.value
                    if isinstance(position, ast.Constant) and isinstance(position.value, int)
                    else 0
                )
                edits.append(
                    _PathEdit("front" if index <= 0 else "index", index, evaluator.eval(node.args[1]))
                )
            elif is_sys_path(target) and method == "append" and len(node.args) == 1:
                edits.append(_PathEdit("end", 0, evaluator.eval(node.args[0])))
            elif is_sys_path(target) and method == "extend" and len(node.args) == 1:
                edits.extend(_PathEdit("end", 0, evaluator.eval(v)) for v in values(node.args[0]))
            elif _dotted(node.func) in ("site.addsitedir",) and node.args:
                edits.append(_PathEdit("end", 0, evaluator.eval(node.args[0]), site=True))
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and is_sys_path(target.value):
                    edits.extend(_PathEdit("front", 0, evaluator.eval(v)) for v in values(node.value))
                elif is_sys_path(target):
                    if isinstance(node, ast.AugAssign):
                        edits.extend(_PathEdit("end", 0, evaluator.eval(v)) for v in values(node.value))
                    else:
                        front = isinstance(node.value, ast.BinOp) and is_sys_path(node.value.right)
                        edits.extend(
                            _PathEdit("front" if front else "end", 0, evaluator.eval(v))
                            for v in values(node.value)
                        )
    return edits


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
            func = _dotted(node.func) or ""
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
    slots: list[Slot] = []

    def slot_for(rel: str) -> Slot:
        return Slot("dir", rel, trusted=within(rel, suite_root) and bool(suite_root))

    if parsed.path0 is not None:
        slots.append(slot_for(parsed.path0))
    slots.extend(slot_for(rel) for rel in parsed.pythonpath)
    slots.extend([Slot("stdlib"), Slot("site")])
    entry = _norm_rel(parsed.script) if parsed.script else None
    ordered = sorted(suite_sources, key=lambda rel: (rel != entry, rel))
    for rel in ordered:
        for edit in _path_edits(suite_sources[rel], rel):
            target = edit.rel if edit.rel is not None else ""
            if target == _OUTSIDE:
                continue
            new = slot_for(target)
            if edit.where == "front":
                slots.insert(0, new)
            elif edit.where == "index":
                slots.insert(min(edit.index, len(slots)), new)
            else:
                slots.append(new)
    imports: set[str] = set()
    for source in suite_sources.values():
        imports |= imported_names(source)
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
    top = suite_root.split("/")
    package = ("/".join(top[:-1]), top[-1])
    if parsed.script:
        imports.add(posixpath.basename(parsed.script).removesuffix(".py"))
    return EvaluatorModel(
        slots=tuple(slots),
        pytest=parsed.pytest,
        imports=frozenset(imports),
        suite_modules={key: frozenset(value) for key, value in modules.items()},
        suite_package=package,
    )


# ------------------------------------------------------------------------------------------ providers


def _site_dirs() -> list[str]:
    return [p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p) and os.path.isdir(p)]


@lru_cache(maxsize=4096)
def third_party(name: str) -> bool:
    """Is `name` an installed (non-stdlib) top-level module or package?"""
    try:
        spec = PathFinder.find_spec(name, _site_dirs())
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.origin not in (None, "namespace")


def stdlib(name: str) -> bool:
    return name in sys.stdlib_module_names and name not in sys.builtin_module_names


@lru_cache(maxsize=64)
def import_closure(names: frozenset[str]) -> frozenset[str]:
    """Every top-level module loaded when the evaluator's installed imports load (run once, in isolation)."""
    code = (
        "import importlib, json, sys\n"
        "for name in json.loads(sys.argv[1]):\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except BaseException:\n"
        "        pass\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    installed = sorted(n for n in names if stdlib(n) or third_party(n))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        with tempfile.TemporaryDirectory(prefix="proctor-imports-") as cwd:
            proc = subprocess.run(
                [sys.executable, "-I", "-c", code, json.dumps(installed)],
                cwd=cwd,
                env=env,
                capture_output=True,
                timeout=120,
                check=False,
            )
        loaded = json.loads(proc.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
        return frozenset(loaded) | names
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return frozenset(sys.stdlib_module_names) | names


def _shadowed(model: EvaluatorModel, position: int, directory: str, name: str) -> str | None:
    """What the candidate's module `name` in slot `position` would replace, if the evaluator imports it."""
    if model.suite_package == (directory, name):
        return f"the suite package `{name}`"
    for slot in model.slots[position + 1 :]:
        local = slot.kind == "dir" and slot.trusted and name in model.suite_modules.get(slot.rel, frozenset())
        if local and name in model.imports:
            return f"the suite's module `{name}` ({slot.rel or '.'})"
        installed = (slot.kind == "stdlib" and stdlib(name)) or (slot.kind == "site" and third_party(name))
        if installed and (name in model.imports or name in import_closure(model.imports)):
            kind = "standard-library" if slot.kind == "stdlib" else "installed"
            return f"the {kind} module `{name}`"
    if name in KNOWN_LIBRARIES and name in model.imports and not third_party(name) and not stdlib(name):
        return f"the library `{name}` the evaluator imports"
    return None


def _would_shadow(model: EvaluatorModel, name: str) -> str | None:
    if name not in model.imports:
        return None
    if stdlib(name):
        return f"the standard-library module `{name}`"
    if third_party(name):
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
    read_old: Callable[[str], bytes | None],
    read_new: Callable[[str], bytes | None],
    new_kind: Callable[[str], str | None],
) -> list[Finding]:
    """IN007 rejections and IN011 flags for candidate-provided paths outside the suite.

    `provided` maps each added or changed path (outside the suite) to its candidate-side kind.
    """
    findings: list[Finding] = []
    modules: dict[tuple[str, str], str] = {}
    for path, kind in provided.items():
        directory, _, name = path.rpartition("/")
        stem = module_name(name)
        parent, _, package = directory.rpartition("/")
        if stem == "__init__" and package in STARTUP_HOOKS:
            directory, stem = parent, package  # a `sitecustomize/` package is imported just like the module
        reachable = model.position(directory) is not None
        if stem in STARTUP_HOOKS or source_suffix(name) == ".pth":
            what = "a start-up hook (`site` runs it)" if stem in STARTUP_HOOKS else "a `.pth` start-up file"
            if reachable:
                findings.append(
                    reject(
                        "IN007",
                        path,
                        f"{what} in {directory or 'the workspace root'}, which is on the evaluator's sys.path",
                    )
                )
            else:
                findings.append(
                    flag(
                        "IN011",
                        path,
                        f"{what}; not on the evaluator's sys.path here, but it runs wherever it is",
                    )
                )
            continue
        if name == "conftest.py":
            if model.pytest:
                findings.append(
                    reject("IN007", path, "a pytest conftest.py: the evaluator runs pytest, which imports it")
                )
            else:
                findings.append(
                    flag("IN011", path, "a pytest conftest.py (the evaluator does not run pytest)")
                )
            continue
        if model.pytest and path in PYTEST_FILES:
            findings.append(reject("IN007", path, "pytest configuration changed: the evaluator runs pytest"))
            continue
        if model.pytest and path in PYTEST_SECTION_FILES:
            section = PYTEST_SECTION_FILES[path]
            old = (read_old(path) or b"").decode("utf-8", "replace")
            new = (read_new(path) or b"").decode("utf-8", "replace")
            if _section(old, section) != _section(new, section):
                findings.append(
                    reject(
                        "IN007", path, f"pytest configuration [{section}] changed: the evaluator runs pytest"
                    )
                )
            continue
        if kind in ("file", "symlink") and stem:
            modules.setdefault((directory, stem), path)
        parts = path.split("/")
        for depth in range(len(parts) - 1):
            package = parts[depth]
            if not package.isidentifier():
                break
            base = "/".join(parts[:depth])
            if model.position(base) is not None or base == "":
                init = "/".join([*parts[: depth + 1], "__init__.py"])
                namespace_substitute = package in KNOWN_LIBRARIES and not third_party(package)
                if new_kind(init) == "file" or namespace_substitute:
                    modules.setdefault((base, package), path)
    for (directory, name), path in sorted(modules.items()):
        position = model.position(directory)
        if position is not None:
            victim = _shadowed(model, position, directory, name)
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
            victim = _would_shadow(model, name)
            if victim:
                findings.append(
                    flag(
                        "IN011",
                        path,
                        f"module `{name}` would replace {victim} if the workspace root were on sys.path",
                    )
                )
    return findings


# ------------------------------------------------------------------------------ IN011: run-time patching

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
            func = _dotted(node.func) or ""
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
        func = _dotted(node.func) or ""
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


def scoring_modules(model: EvaluatorModel) -> frozenset[str]:
    local = {name for names in model.suite_modules.values() for name in names}
    return SCORING_ROOTS | local | {model.suite_package[1]}
