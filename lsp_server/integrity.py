"""Live integrity (SPEC §8): warn in the editor when a registered suite is being changed.

Once `.kapso/evaluation_registry.json` exists, the suite is the registry head's. Per-file content hashes come
from the head's manifest: a suite file whose buffer (or disk content) hashes differently gets IN001 at its
top, a deleted suite file IN002 and a new source file IN005. With no registry nothing is flagged.

This module holds the per-file findings (every lint of a suite file with a baseline reads them); where the
baseline comes from and the findings for the whole suite tree are `lsp_server.baseline`'s, loaded only once a
registry exists. Manifest keys are suite-relative, exactly as Kapso hashes them; findings use workspace paths.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from core.diagnostics import Diagnostic, Range, Severity
from core.integrity.classify import is_source

REGISTRY_FILE = ".kapso/evaluation_registry.json"
CONSEQUENCE = (
    "a candidate with this change is rejected; register a new version with "
    "`proctor registry register` if this is intended"
)
_NAMES = {"IN001": "suite-file-changed", "IN002": "suite-file-deleted", "IN005": "new-suite-source"}


@dataclass(frozen=True)
class Head:
    evaluator_id: str
    version: int


@dataclass(frozen=True)
class Baseline:
    head: Head
    suite: str  # workspace-relative suite directory, no trailing slash
    manifest: Mapping[str, str] | None  # suite-relative keys; None: no suite we can see has the head's id
    source: str

    def key(self, relpath: str) -> str | None:
        """The manifest key of a workspace-relative path, or None when it is outside the suite."""
        prefix = self.suite + "/"
        return relpath[len(prefix) :] if relpath.startswith(prefix) else None


def finding_at_top(relpath: str, code: str, message: str) -> Diagnostic:
    """A live-integrity finding on the first line of `relpath`."""
    return Diagnostic(code, _NAMES[code], Severity.WARNING, relpath, Range.of(0, 0, 0, 0), message)


def file_findings(baseline: Baseline, relpath: str, content: bytes, executable: bool) -> list[Diagnostic]:
    """IN001/IN005 for one suite file as the user sees it now (`content`: buffer or disk bytes)."""
    key = baseline.key(relpath)
    if key is None:
        return []
    version = baseline.head.version
    if baseline.manifest is None:
        short = baseline.head.evaluator_id[:12]
        return [
            finding_at_top(
                relpath,
                "IN001",
                f"the suite differs from registered version {version} ({short}); {CONSEQUENCE}",
            )
        ]
    expected = baseline.manifest.get(key)
    if expected is None:
        if is_source(relpath, executable=executable, head=content[:2]):
            return [
                finding_at_top(
                    relpath, "IN005", f"new source file in registered suite version {version}; {CONSEQUENCE}"
                )
            ]
        return []
    if hashlib.sha256(content).hexdigest() != expected:
        return [
            finding_at_top(
                relpath, "IN001", f"this file differs from registered suite version {version}; {CONSEQUENCE}"
            )
        ]
    return []


def deleted_finding(baseline: Baseline, relpath: str) -> Diagnostic:
    version = baseline.head.version
    return finding_at_top(
        relpath, "IN002", f"`{relpath}` of registered suite version {version} was deleted; {CONSEQUENCE}"
    )


def in_manifest(baseline: Baseline, relpath: str) -> bool:
    key = baseline.key(relpath)
    return key is not None and baseline.manifest is not None and key in baseline.manifest
