"""Tree objects read without a git process per tree: parsing canonical trees and diffing two of them.

`diff_trees` reads level by level through the persistent `ObjectStore`, so its cost follows what changed;
anything unusual (what `git fsck` warns about) returns None and the caller asks `git diff-tree` itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.integrity.git import RawChange

if TYPE_CHECKING:
    from core.integrity.object_store import ObjectStore

_TREE_MODES = {b"100644": 0o100644, b"100755": 0o100755, b"120000": 0o120000, b"160000": 0o160000}
_DIR_MODE = 0o40000


def parse_tree(data: bytes, raw_len: int) -> list[tuple[int, bytes, str]] | None:
    """(mode, name, hex oid) of each entry of a canonical tree object; None for anything unusual.

    Unusual means what `git fsck` warns about (odd or zero-padded modes, empty, `.`, `..` or `/` names,
    duplicates, wrong order): those trees go to `git diff-tree` itself, so git's own reading decides.
    """
    entries = []
    names: set[bytes] = set()
    previous = b""
    pos, end = 0, len(data)
    while pos < end:
        space = data.find(b" ", pos, pos + 7)
        if space < 0:
            return None
        nul = data.find(b"\0", space + 1)
        if nul < 0 or nul + 1 + raw_len > end:
            return None
        mode_text, name = data[pos:space], data[space + 1 : nul]
        mode = _DIR_MODE if mode_text == b"40000" else _TREE_MODES.get(mode_text)
        if mode is None or name in (b"", b".", b"..") or b"/" in name or name in names:
            return None
        key = name + b"/" if mode == _DIR_MODE else name
        if key <= previous:
            return None
        names.add(name)
        previous = key
        entries.append((mode, name, data[nul + 1 : nul + 1 + raw_len].hex()))
        pos = nul + 1 + raw_len
    return entries


def diff_trees(store: ObjectStore, old_tree: str, new_tree: str) -> list[RawChange] | None:
    """`git diff-tree -r --raw` of two trees, read level by level through the store.

    Subtrees with equal ids are never opened, so the cost follows what changed, not the size of the
    repository. None when a tree is unusual (see `parse_tree`): the caller then runs `diff_tree`.
    """
    zero = "0" * len(old_tree)
    raw_len = len(old_tree) // 2
    changes: list[RawChange] = []
    level: list[tuple[str, str | None, str | None]] = [("", old_tree, new_tree)]
    while level:
        wanted = [oid for _, old, new in level for oid in (old, new) if oid is not None]
        trees: dict[str, list[tuple[int, bytes, str]]] = {}
        for (info, data), oid in zip(store.objects(wanted), wanted, strict=True):
            parsed = parse_tree(data, raw_len) if info.type == "tree" else None
            if parsed is None:
                return None
            trees[oid] = parsed
        following: list[tuple[str, str | None, str | None]] = []
        for prefix, old, new in level:
            before = {name: (mode, oid) for mode, name, oid in trees[old]} if old else {}
            after = {name: (mode, oid) for mode, name, oid in trees[new]} if new else {}
            for name in sorted(before.keys() | after.keys()):
                o, n = before.get(name), after.get(name)
                if o == n:
                    continue
                path = prefix + name.decode("utf-8", "surrogateescape")
                o_dir = o is not None and o[0] == _DIR_MODE
                n_dir = n is not None and n[0] == _DIR_MODE
                if o_dir or n_dir:
                    following.append(
                        (
                            f"{path}/",
                            o[1] if o is not None and o_dir else None,
                            n[1] if n is not None and n_dir else None,
                        )
                    )
                o_blob = o if o is not None and not o_dir else None
                n_blob = n if n is not None and not n_dir else None
                if o_blob is not None or n_blob is not None:
                    changes.append(_blob_change(path, o_blob, n_blob, zero))
        level = following
    return changes


def _blob_change(path: str, old: tuple[int, str] | None, new: tuple[int, str] | None, zero: str) -> RawChange:
    """One `--raw` line for a non-tree entry that was added, deleted, modified or changed type."""
    if old is None:
        status = "A"
    elif new is None:
        status = "D"
    else:
        status = "M" if (old[0] & 0o170000) == (new[0] & 0o170000) else "T"
    return RawChange(
        f"{old[0]:06o}" if old else "000000",
        f"{new[0]:06o}" if new else "000000",
        old[1] if old else zero,
        new[1] if new else zero,
        status,
        path,
    )
