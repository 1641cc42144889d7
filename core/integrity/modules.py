"""Module facts the guard's IN007 decisions ask for, behind one narrow Protocol.

`ModuleProvider` answers three questions: is a name the standard library's, is it installed (third-party),
and which top-level modules load when the evaluator's imports load. The decisions in `hooks` only ever ask
these; `InstalledModules` answers them for the Python running Proctor (the import closure costs one isolated
subprocess per set of names, cached), and tests hand in a fake.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from functools import lru_cache
from importlib.machinery import PathFinder
from typing import Protocol

_CLOSURE_SCRIPT = (
    "import importlib, json, sys\n"
    "for name in json.loads(sys.argv[1]):\n"
    "    try:\n"
    "        importlib.import_module(name)\n"
    "    except BaseException:\n"
    "        pass\n"
    "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
)


class ModuleProvider(Protocol):
    def stdlib(self, name: str) -> bool:
        """A standard-library module that lives on disk (not compiled into the interpreter)."""
        ...

    def third_party(self, name: str) -> bool:
        """An installed (non-stdlib) top-level module or package."""
        ...

    def import_closure(self, names: frozenset[str]) -> frozenset[str]:
        """Every top-level module loaded when `names` (the evaluator's imports) load, `names` included."""
        ...


class InstalledModules:
    """The facts of the interpreter running Proctor (its site-packages, its stdlib)."""

    def stdlib(self, name: str) -> bool:
        return name in sys.stdlib_module_names and name not in sys.builtin_module_names

    def third_party(self, name: str) -> bool:
        return _third_party(name)

    def import_closure(self, names: frozenset[str]) -> frozenset[str]:
        return _import_closure(names)


INSTALLED = InstalledModules()


def _site_dirs() -> list[str]:
    return [p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p) and os.path.isdir(p)]


@lru_cache(maxsize=4096)
def _third_party(name: str) -> bool:
    try:
        spec = PathFinder.find_spec(name, _site_dirs())
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.origin not in (None, "namespace")


@lru_cache(maxsize=64)
def _import_closure(names: frozenset[str]) -> frozenset[str]:
    """Run once per set of names, in isolation (`-I`, an empty directory, a minimal environment)."""
    installed = sorted(n for n in names if INSTALLED.stdlib(n) or _third_party(n))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        with tempfile.TemporaryDirectory(prefix="proctor-imports-") as cwd:
            proc = subprocess.run(
                [sys.executable, "-I", "-c", _CLOSURE_SCRIPT, json.dumps(installed)],
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
