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

from core.diagnostics import FindingSeverity

CODE = "IN008"
NAME = "git-level-attack"
SEVERITY = FindingSeverity.REJECT
TITLE = "git-level attack on protected paths"
