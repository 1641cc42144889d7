"""One comparison of a suite before and after the evaluator ran, for both places that need it.

`proctor verify`'s `no-stray-writes` clause and the guard's IN009 re-hash both describe every path of the
suite as one string (its type, mode and digest, as each records them) before and after, and ask the same
question: which paths changed, which were deleted, which are new. Each then says what that means in its
own words.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.integrity.manifest import SuiteSnapshot


@dataclass(frozen=True)
class SuiteDiff:
    """Sorted suite-relative paths: present on both sides with another description, gone, and new."""

    changed: tuple[str, ...]
    deleted: tuple[str, ...]
    added: tuple[str, ...]


def suite_diff(
    before: Mapping[str, str], after: Mapping[str, str], ignored: Collection[str] = ()
) -> SuiteDiff:
    """What differs between two descriptions of a suite (`{path: description}`), `ignored` paths aside."""
    return SuiteDiff(
        changed=tuple(sorted(p for p in before if p not in ignored and p in after and after[p] != before[p])),
        deleted=tuple(sorted(p for p in before if p not in ignored and p not in after)),
        added=tuple(sorted(p for p in after if p not in before and p not in ignored)),
    )


def snapshot_state(snap: SuiteSnapshot) -> dict[str, str]:
    """A guard snapshot as descriptions: type, executable bit and digest (manifest or bytecode) per path."""
    return {
        rel: f"{mode['type']}:{'x' if mode['executable'] else '-'}:{snap.manifest.get(rel) or snap.junk.get(rel, '')}"
        for rel, mode in snap.modes.items()
    }
