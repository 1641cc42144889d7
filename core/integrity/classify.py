"""Path rules shared by the manifest, the guard and materialization (SPEC §4.1, §4.2).

One place decides what counts as source, as runtime junk, as an importable module and as "the same path"
under case folding and Unicode normalization, so the tree and git paths of the guard cannot disagree.
"""

from __future__ import annotations

import unicodedata
from importlib.machinery import all_suffixes
from pathlib import PurePosixPath

# Kapso 0.7.10's PROTECTED_SUFFIXES, verbatim.
KAPSO_SOURCE_SUFFIXES = frozenset(
    {
        ".c", ".cc", ".cfg", ".cpp", ".go", ".java", ".js", ".jsx", ".ipynb", ".ini", ".pl", ".ps1", ".py",
        ".r", ".rb", ".rs", ".sh", ".bash", ".sql", ".toml", ".ts", ".tsx", ".yaml", ".yml", ".zsh",
    }
)  # fmt: skip
# What Kapso's list lacks: files the interpreter loads or executes by themselves (IN005).
EXTRA_SOURCE_SUFFIXES = frozenset(
    {".pth", ".pyi", ".pyx", ".pxd", ".so", ".dylib", ".pyd", ".mjs", ".cjs", ".pyc", ".pyw", ".pyo"}
)
SOURCE_SUFFIXES = KAPSO_SOURCE_SUFFIXES | EXTRA_SOURCE_SUFFIXES

# Kapso's runtime junk: skipped when *hashing* only.
JUNK_DIRS = frozenset({"__pycache__"})
JUNK_SUFFIXES = frozenset({".pyc"})

# Longest first, so `x.cpython-311-x86_64-linux-gnu.so` is module `x`, not `x.cpython-311-x86_64-linux-gnu`.
IMPORT_SUFFIXES = tuple(sorted(set(all_suffixes()) | {".so", ".pyc"}, key=len, reverse=True))

# Zero-width code points HFS+ ignores in names (git's is_hfs_dotgit list).
_IGNORABLE = dict.fromkeys([*range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF])


def is_junk(relpath: str) -> bool:
    """Kapso's exclusion, exactly: any `__pycache__` component, or a last-component suffix `.pyc` (any case)."""
    path = PurePosixPath(relpath)
    return bool(JUNK_DIRS.intersection(path.parts)) or path.suffix.lower() in JUNK_SUFFIXES


def source_suffix(name: str) -> str:
    """The suffix used for the source check: case-folded, trailing dots and spaces ignored (Windows drops them)."""
    return PurePosixPath(name.rstrip(". ") or name).suffix.lower()


def is_source(relpath: str, *, executable: bool, head: bytes) -> bool:
    """IN005: a file the interpreter or the shell could run, by suffix, mode, shebang, or bytecode location."""
    name = PurePosixPath(relpath).name
    return source_suffix(name) in SOURCE_SUFFIXES or executable or head.startswith(b"#!")


def module_name(filename: str) -> str | None:
    """The top-level module a file in a sys.path directory provides (`json.py` → `json`), else None."""
    lower = filename.lower()
    for suffix in IMPORT_SUFFIXES:
        if lower.endswith(suffix) and len(filename) > len(suffix):
            stem = filename[: -len(suffix)]
            return stem if stem.isidentifier() else None
    return None


def fold(path: str) -> str:
    """The key under which two paths collide on a case-insensitive or normalizing filesystem."""
    text = unicodedata.normalize("NFC", path).translate(_IGNORABLE)
    return unicodedata.normalize("NFC", text.casefold())


def has_git_component(relpath: str) -> bool:
    """A path git itself refuses to check out (`.git` in any case, with trailing dots or spaces)."""
    return any(part.rstrip(". ").casefold() == ".git" for part in relpath.split("/"))


def within(path: str, root: str) -> bool:
    """`path` is `root` or lies under it (posix, workspace-relative; root '' is the whole workspace)."""
    return not root or path == root or path.startswith(root + "/")


def ancestors(path: str) -> list[str]:
    """Proper ancestors of a relative path, nearest last: `a/b/c` → [`a`, `a/b`]."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]
