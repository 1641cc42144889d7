"""Every package's public API is its `__all__`: sorted, without duplicates, and every name importable.

httpx's tests/test_exported_members.py is the model. Packages are found on disk, so a new package that
declares an `__all__` is checked without being listed here.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "lsp_server", "github_app")


def _declared_all(init: Path) -> list[str] | None:
    """The literal `__all__` of a package's `__init__.py`, read without importing it (None: none declared)."""
    for node in ast.parse(init.read_text("utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            names = ast.literal_eval(value)
            assert isinstance(names, (list, tuple)), f"{init}: __all__ must be a literal list"
            return [str(name) for name in names]
    return None


def _isort_key(name: str) -> tuple[int, list[int | str]]:
    """ruff's RUF022 order (make lint enforces it on every `__all__`): SCREAMING_CASE, then CamelCase, then
    the rest, each in natural order (digits compared as numbers)."""
    group = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return group, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _packages() -> list[tuple[str, list[str]]]:
    found = []
    for top in PACKAGES:
        for init in sorted((ROOT / top).rglob("__init__.py")):
            names = _declared_all(init)
            if names is not None:
                found.append((".".join(init.parent.relative_to(ROOT).parts), names))
    return found


def test_the_public_packages_declare_their_api() -> None:
    declared = {package for package, _ in _packages()}
    assert {"core", "core.campaign", "core.judge", "lsp_server"} <= declared


@pytest.mark.parametrize(("package", "names"), _packages(), ids=[p for p, _ in _packages()])
def test_all_is_sorted_unique_and_importable(package: str, names: list[str]) -> None:
    assert len(set(names)) == len(names), f"{package}.__all__ has duplicates"
    assert names == sorted(names, key=_isort_key), f"{package}.__all__ is not sorted"
    module = importlib.import_module(package)
    assert list(module.__all__) == names
    missing = [name for name in names if not hasattr(module, name)]
    assert missing == [], f"{package}.__all__ names what it does not define"
