"""Text and JSON renderings of fingerprints, guard reports and the registry (SPEC §6 shapes)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from core.integrity.checks import rule_title

if TYPE_CHECKING:
    from core.integrity.guard import GuardReport
    from core.integrity.manifest import SuiteSnapshot
    from core.registry import RegistryEntry


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False, allow_nan=False)


def fingerprint_json(suite: str, snap: SuiteSnapshot) -> str:
    return _dump(
        {
            "schema": 1,
            "suite": suite,
            "evaluator_id": snap.evaluator_id,
            "manifest": snap.manifest,
            "modes": snap.modes,
        }
    )


def fingerprint_text(suite: str, snap: SuiteSnapshot) -> str:
    lines = [f"evaluator_id {snap.evaluator_id}", f"suite        {suite} ({len(snap.manifest)} files)"]
    for rel, digest in snap.manifest.items():
        executable = "x" if snap.modes.get(rel, {}).get("executable") else "-"
        lines.append(f"  {digest[:12]} {executable} {rel}")
    return "\n".join(lines)


def guard_json(report: GuardReport) -> str:
    return _dump(report.to_json())


def guard_text(report: GuardReport) -> str:
    rejects = sum(1 for f in report.findings if f.severity == "reject")
    flags = len(report.findings) - rejects
    head = f"{report.verdict}: evaluator {report.evaluator_id[:12]}"
    if report.findings:
        head += f" ({rejects} rejecting, {flags} flagged)"
    lines = [head]
    for finding in report.findings:
        lines.append(f"  {finding.code} {finding.severity:<6} {finding.path}: {finding.detail}")
    codes = sorted({f.code for f in report.findings})
    if codes:
        lines.append("")
        lines.extend(f"  {code}: {rule_title(code)}" for code in codes)
    return "\n".join(lines)


def registry_list_text(entries: list[RegistryEntry]) -> str:
    if not entries:
        return "no evaluator is registered (proctor registry register --provenance provided --reason ...)"
    lines = []
    for entry in entries:
        marker = "*" if entry is entries[-1] else " "
        lines.append(
            f"{marker} v{entry.version}  {entry.evaluator_id[:12]}  {entry.provenance:<16} {entry.reason}"
        )
    return "\n".join(lines)


def registry_json(entries: list[RegistryEntry]) -> str:
    return _dump({"schema": 1, "versions": [entry.to_json() for entry in entries]})


def entry_text(entry: RegistryEntry) -> str:
    data = entry.to_json()
    lines = [f"v{entry.version} {entry.evaluator_id}"]
    for key in (
        "provenance",
        "parent_evaluator",
        "reason",
        "created_at_iteration",
        "fidelity_support",
        "timing",
    ):
        lines.append(f"  {key}: {json.dumps(data[key], sort_keys=True)}")
    lines.append(f"  data_manifest: {len(entry.data_manifest)} files")
    return "\n".join(lines)
