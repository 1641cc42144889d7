"""`.kapso/experiment_history.json` in Kapso 0.7.10's `ExperimentRecord` format (SPEC §5.3).

Kapso users read a campaign's candidates with their usual tools. Unlike Kapso the file is replaced atomically,
and a record is upserted by its `solution` text (which names the campaign and the commit), so a candidate that
was written just before a kill -9 and re-measured on resume is never listed twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.atomic import atomic_write_json
from core.campaign.model import CandidateRecord
from core.errors import CampaignError
from core.state_root import history_file

HISTORY_PATH = Path(".kapso") / "experiment_history.json"

# Every field of kapso.execution.memories.experiment_memory.store.ExperimentRecord, in its order.
RECORD_FIELDS = (
    "node_id",
    "solution",
    "score",
    "feedback",
    "branch_name",
    "had_error",
    "error_message",
    "timestamp",
    "technical_difficulties",
    "solution_embedding",
    "metrics",
    "primary_metric",
    "external_evaluation_metadata",
    "external_evaluation_error",
    "evaluation_valid",
    "evaluation_provenance",
    "evaluation_integrity_error",
    "estimated_cost",
    "measured_cost",
    "cost_refusal",
)


def solution_text(campaign_id: str, record: CandidateRecord) -> str:
    """The record's identity inside the history file (campaign, position, ref and commit)."""
    return f"proctor campaign {campaign_id} candidate {record.index}: {record.ref} @ {record.commit or '-'}"


def to_experiment_record(
    campaign_id: str,
    record: CandidateRecord,
    *,
    metric_name: str,
    provenance: str,
    now: datetime | None = None,
) -> dict[str, Any]:
    """One ExperimentRecord. A rejected candidate is `evaluation_valid: false` with the integrity reason."""
    external = record.external
    codes = ", ".join(record.finding_codes)
    if record.status == "scored":
        feedback = f"scored {metric_name}: {record.score}"
    elif record.status == "rejected":
        feedback = f"rejected: {codes or record.reason}"
    else:
        feedback = f"failed: {record.reason}"
    integrity = ""
    if record.status == "rejected":
        integrity = "; ".join(
            f"{f.code} {f.path}: {f.detail}" for f in record.findings if f.severity == "reject"
        )
        integrity = integrity or record.reason
    return {
        "node_id": record.index,
        "solution": solution_text(campaign_id, record),
        "score": record.score if record.status == "scored" else None,
        "feedback": feedback,
        "branch_name": record.ref,
        "had_error": record.status == "failed",
        "error_message": record.reason if record.status == "failed" else "",
        "timestamp": (now or datetime.now(UTC)).isoformat(),
        "technical_difficulties": "",
        "solution_embedding": [],
        "metrics": dict(external.metrics) if external is not None else {},
        "primary_metric": external.primary_metric if external is not None else None,
        "external_evaluation_metadata": dict(external.metadata) if external is not None else {},
        "external_evaluation_error": external.error if external is not None else "",
        "evaluation_valid": record.status != "rejected",
        # Kapso knows two provenances: a suite supplied by the user, or one an agent wrote.
        "evaluation_provenance": "provided"
        if provenance in {"provided", "maintainer_built"}
        else "agent_generated",
        "evaluation_integrity_error": integrity,
        "estimated_cost": None,
        "measured_cost": None,
        "cost_refusal": None,
    }


def read_history(repo: Path) -> list[dict[str, Any]]:
    path = history_file(repo)
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CampaignError(
            f"{path}: not a readable experiment history ({exc}); move it away to start afresh", path=path
        ) from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise CampaignError(f"{path}: expected a JSON list of experiment records", path=path)
    return data


def append_history(repo: Path, entries: Sequence[dict[str, Any]]) -> None:
    """Upsert `entries` (by `solution`) and replace the file atomically."""
    existing = read_history(repo)
    keys = {entry["solution"] for entry in entries}
    kept = [item for item in existing if item.get("solution") not in keys]
    atomic_write_json(history_file(repo), kept + list(entries))
