"""## What it does
Rejects git-level attacks on the protected paths: a `.gitattributes` that would change the checked-out
bytes of a protected file (a `filter` or `ident`, or a `text`/`eol`/`working-tree-encoding` that actually
converts that file's content — computed from the bytes, so GitHub's Python template and `* text=auto
eol=lf` on LF files pass), a `.gitmodules` entry pointing at the suite or a protected input, and a new path
that differs from a protected one only by case or Unicode normalization.

## Why is this bad?
These change what a checkout of the candidate contains without changing a protected blob: a filter can
rewrite `evaluate.py` on checkout, CRLF conversion changes the bytes the data hash covers, and a
`Kapso_Evaluation/` twin becomes the suite on a case-insensitive file system. Proctor materializes from
git objects, so its own runs are not fooled; the rejection protects everyone else who checks the
candidate out.

## Example
```console
$ echo "kapso_evaluation/** filter=boost" >> .gitattributes
$ git config filter.boost.smudge "sed s/0.71/0.91/"
$ git commit -am "normalize files"
```

Use instead:
```console
$ echo "*.ipynb diff=jupyternotebook" >> .gitattributes
$ git commit -am "nicer notebook diffs"
```
`diff`, `merge`, `linguist-*` and `export-ignore` never change checked-out bytes and are always fine.

## What a reviewer should do
Open the named `.gitattributes` or `.gitmodules` line, or compare the colliding path with the protected one
the detail names. None of these has an honest reason to touch the suite: reject the candidate's work.

## References
- README "Integrity: fingerprints, guard, registry" (cases `auto-crlf-on-suite`, `eol-on-data`,
  `filter-macro`, `gitmodules`, `case-collision`, `nfd-collision`)
- https://git-scm.com/docs/gitattributes
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from core.diagnostics import FindingSeverity
from core.integrity.classify import ancestors, fold, is_junk, within
from core.integrity.findings import Finding, reject
from core.integrity.gitattr import CONVERSION_ATTRS, conversions, gitmodules_paths, path_attributes, touches

CODE = "IN008"
NAME = "git-level-attack"
SEVERITY = FindingSeverity.REJECT
TITLE = "git-level attack on protected paths"

if TYPE_CHECKING:
    from core.integrity.context import Entry, GuardContext, TreeView


def check(ctx: GuardContext) -> Iterator[Finding]:
    yield from _submodules(ctx)
    changed_attributes = [
        c.path for c in ctx.changes if c.altered and c.path.rsplit("/", 1)[-1] == ".gitattributes"
    ]
    yield from _attribute_findings(ctx.view, changed_attributes, ctx.suite, ctx.inputs)
    added = [c.path for c in ctx.changes if c.old is None and c.new is not None]
    yield from _collisions(added, ctx.suite, ctx.inputs, ctx.view.baseline_suite)


def _submodules(ctx: GuardContext) -> Iterator[Finding]:
    """A `.gitmodules` (outside the protected paths) whose submodule would sit on the suite or an input."""
    for change in ctx.in_zone("outside"):
        if change.path == ".gitmodules" and change.altered:
            for sub in gitmodules_paths(ctx.new_text(change.path)):
                hit = touches(sub, [ctx.suite, *ctx.inputs])
                if hit:
                    yield reject(CODE, change.path, f"a submodule at {sub!r} overlaps the protected {hit!r}")


def _protected_files(view: TreeView, suite: str, inputs: list[str]) -> list[str]:
    """Every protected file of the baseline: the suite's (not runtime junk) and the protected inputs'."""
    files = [rel for rel, entry in view.baseline_suite().items() if entry.kind == "file" and not is_junk(rel)]
    for root in inputs:
        files.extend(rel for rel, is_dir in view.baseline_under(root).items() if not is_dir)
    return files


def _attr_texts(view: TreeView, paths: set[str], side: str) -> dict[str, str]:
    read = view.read_new if side == "new" else view.read_old
    texts = {}
    for path in sorted(paths):
        data = read(path)
        if data:
            texts[path] = data.decode("utf-8", "replace")
    return texts


def _attribute_findings(view: TreeView, changed: list[str], suite: str, inputs: list[str]) -> list[Finding]:
    """IN008 for `.gitattributes` that would change a protected file's checked-out bytes (computed, see
    `gitattr`). Only conversions the baseline's own attributes did not already make count."""
    if not changed:
        return []
    protected = _protected_files(view, suite, inputs)
    attr_paths = set(changed)
    for root in [suite, *inputs]:
        attr_paths.update(f"{d}/.gitattributes" if d else ".gitattributes" for d in ["", *ancestors(root)])
    attr_paths.update(rel for rel in protected if rel.rsplit("/", 1)[-1] == ".gitattributes")
    new_texts, old_texts = _attr_texts(view, attr_paths, "new"), _attr_texts(view, attr_paths, "old")
    hits: dict[tuple[str, int, str], list[str]] = {}
    for path in protected:
        attrs = path_attributes(path, new_texts)
        if not CONVERSION_ATTRS.intersection(attrs):
            continue
        content = view.read_new(path)
        now = conversions(attrs, content if content is not None else view.read_old(path) or b"")
        if not now:
            continue
        before = {
            what for what, _ in conversions(path_attributes(path, old_texts), view.read_old(path) or b"")
        }
        for what, setter in now:
            if what not in before:
                hits.setdefault((setter.file, setter.line, what), [setter.describe()]).append(path)
    findings = []
    for (attr_file, _line, what), (described, first, *more) in sorted(hits.items()):
        others = f" (and {len(more)} more)" if more else ""
        findings.append(reject(CODE, attr_file, f"{described} {what} the protected {first!r}{others}"))
    return findings


def _collisions(
    added: list[str], suite: str, inputs: list[str], base_suite: Callable[[], dict[str, Entry]]
) -> list[Finding]:
    """IN008: a new path equal to a protected one after case folding or Unicode normalization.

    Only new paths that fold into the suite are compared file by file (and only then is the baseline suite
    listed), so an unchanged suite costs nothing.
    """
    if not added:
        return []
    keys: dict[str, str] = {}
    for root in [suite, *inputs]:
        for name in [*ancestors(root), root]:
            keys.setdefault(fold(name), name)
    folded_suite = fold(suite)
    if any(within(fold(path), folded_suite) for path in added):
        keys.update(_suite_keys(suite, base_suite()))
    findings = []
    for path in added:
        for prefix in [*ancestors(path), path]:
            protected = keys.get(fold(prefix))
            if protected is not None and protected != prefix:
                findings.append(
                    reject(
                        "IN008",
                        path,
                        f"{prefix!r} differs from the protected {protected!r} only by case or normalization",
                    )
                )
                break
    return findings


_KEYS_CACHE: dict[int, tuple[dict[str, Entry], dict[str, str]]] = {}


def _suite_keys(suite: str, base_suite: dict[str, Entry]) -> dict[str, str]:
    cached = _KEYS_CACHE.get(id(base_suite))
    if cached is not None and cached[0] is base_suite:
        return cached[1]
    keys: dict[str, str] = {}
    for rel in base_suite:
        for name in [*ancestors(rel), rel]:
            if within(name, suite):
                keys.setdefault(fold(name), name)
    if len(_KEYS_CACHE) > 16:
        _KEYS_CACHE.clear()
    _KEYS_CACHE[id(base_suite)] = (base_suite, keys)
    return keys
