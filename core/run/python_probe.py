"""What an interpreter is and which directories it imports from; stdlib only, any Python 3.7 or later.

core/interpreter.py runs this file's text with `python -I -c` in the evaluator's interpreter (outside any
sandbox) and reads the one JSON line it prints. Proctor's own interpreter imports `editable_paths` directly.

An editable install need not put a directory on sys.path: setuptools' finder (`__editable___*_finder`) and
the `editables` redirector map package names to source directories anywhere — a checkout under /tmp, which
a sandbox's private /tmp would hide. `editable_paths` lists exactly those package directories (or module
files), never the checkout around them, so the sandbox can bind them read-only and nothing else.
"""

from __future__ import annotations

import json
import os
import sys


def _mapped(value: object) -> list[str]:
    """The paths an editable mapping entry names: a string, or a list of them (namespace packages)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    found = []
    for item in items:
        if not isinstance(item, str) or not item:
            continue
        path = os.path.abspath(item)
        if os.path.basename(path) == "__init__.py":
            path = os.path.dirname(path)
        if os.path.exists(path):
            found.append(path)
    return found


def editable_paths() -> list[str]:
    """Package directories (or module files) that this interpreter's editable finders import from."""
    mappings: list[object] = []
    for name, module in list(sys.modules.items()):
        if name.startswith("__editable__") and name.endswith("_finder"):
            mappings += [getattr(module, "MAPPING", None), getattr(module, "NAMESPACES", None)]
    for finder in sys.meta_path:
        mappings.append(getattr(finder, "_redirections", None))  # the `editables` package (hatchling)
    found: list[str] = []
    for mapping in mappings:
        if isinstance(mapping, dict):
            for value in mapping.values():
                found += [p for p in _mapped(value) if p not in found]
    return found


def describe() -> dict[str, object]:
    """The probe's answer: the program, version, prefixes, import path, editable paths and distributions."""
    try:
        from importlib import metadata

        dists = sorted(
            {f"{(d.metadata['Name'] or '?').lower()}=={d.version}" for d in metadata.distributions()}
        )
    except Exception as exc:  # a broken distribution must not hide the interpreter
        dists = [f"<unreadable: {type(exc).__name__}>"]
    return {
        "executable": sys.executable,
        "version": ".".join(str(n) for n in sys.version_info[:3]),
        "prefixes": [
            sys.prefix,
            sys.base_prefix,
            sys.exec_prefix,
            getattr(sys, "base_exec_prefix", sys.exec_prefix),
        ],
        "path": [p for p in sys.path if p],
        "cache_tag": sys.implementation.cache_tag or "",
        "editable": editable_paths(),
        "dists": dists,
    }


if __name__ == "__main__":
    print(json.dumps(describe()))
