"""The campaign checkpoint `.proctor/campaigns/<id>/state.json` and the resume fingerprint (SPEC §5.4).

The parent process alone writes the checkpoint, atomically, after every candidate. A kill -9 therefore leaves
either the previous checkpoint or the new one; resume re-measures exactly the candidates the checkpoint lacks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.atomic import atomic_write_json
from core.campaign.model import CandidateRecord, ref_from_json, ref_to_json
from core.campaign.verdict import NoiseRule
from core.errors import CampaignError
from core.registry import EvaluatorRef
from core.state_root import proctor_dir

STATE_SCHEMA = 1
CAMPAIGNS_DIR = Path(".proctor") / "campaigns"

# Human names for the fingerprint components, used in the refusal message.
COMPONENT_NAMES = {
    "evaluator_id": "the evaluator (suite fingerprint)",
    "command": "the evaluator command",
    "baseline_commit": "the baseline commit",
    "candidate_source": "the candidate source",
    "iteration_evaluator": "the iteration evaluator",
    "iteration_evaluator_failure_policy": "the iteration evaluator failure policy",
}


@dataclass(frozen=True)
class Fingerprint:
    """What must not change between a campaign and its resume."""

    evaluator_id: str
    command: str
    baseline_commit: str
    candidate_source: dict[str, Any]
    iteration_evaluator: str
    iteration_evaluator_failure_policy: str

    def to_json(self) -> dict[str, Any]:
        return {
            "evaluator_id": self.evaluator_id,
            "command": self.command,
            "baseline_commit": self.baseline_commit,
            "candidate_source": self.candidate_source,
            "iteration_evaluator": self.iteration_evaluator,
            "iteration_evaluator_failure_policy": self.iteration_evaluator_failure_policy,
        }

    @property
    def digest(self) -> str:
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fingerprint:
        return cls(
            evaluator_id=str(data["evaluator_id"]),
            command=str(data["command"]),
            baseline_commit=str(data["baseline_commit"]),
            candidate_source=dict(data["candidate_source"]),
            iteration_evaluator=str(data.get("iteration_evaluator", "")),
            iteration_evaluator_failure_policy=str(data.get("iteration_evaluator_failure_policy", "record")),
        )

    def changes_from(self, stored: Fingerprint) -> list[str]:
        """One phrase per changed component, e.g. "the evaluator command: 'a' → 'b'"."""
        mine, theirs = self.to_json(), stored.to_json()
        changes = []
        for key, name in COMPONENT_NAMES.items():
            if mine[key] != theirs[key]:
                changes.append(f"{name}: {_show(theirs[key])} → {_show(mine[key])}")
        return changes


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value[:12]
    return repr(value) if value != "" else "(none)"


@dataclass(frozen=True)
class PlannedCandidate:
    """A candidate known before it is measured (refs source) or once generated (generator source)."""

    index: int
    ref: str
    commit: str | None
    parent_ref: str

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "ref": self.ref, "commit": self.commit, "parent_ref": self.parent_ref}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlannedCandidate:
        return cls(int(data["index"]), str(data["ref"]), data.get("commit"), str(data.get("parent_ref", "")))


@dataclass(frozen=True)
class CampaignState:
    campaign_id: str
    created_at: str
    baseline_ref: str
    fingerprint: Fingerprint
    evaluator: EvaluatorRef
    metric_name: str
    direction: str
    goal: str
    sandbox: str
    planned: tuple[PlannedCandidate, ...] = ()
    baseline: CandidateRecord | None = None
    records: tuple[CandidateRecord, ...] = ()
    complete: bool = False
    delivered_branch: str | None = None
    notes: tuple[str, ...] = field(default=())
    # The prompt source's ledger (core/campaign/prompt_source/driver.py): spend, iterations, feedback texts.
    prompt: Mapping[str, Any] = field(default_factory=dict)
    # The baseline config's `[campaign] min_improvement` / `significance`: what a winner must beat.
    noise: NoiseRule = field(default=NoiseRule())
    # For the report's header; empty in checkpoints written before they were recorded.
    finished_at: str = ""
    proctor_version: str = ""
    # The evaluator's interpreter (core/interpreter.py ProjectPython.to_json): path, version, source, identity.
    interpreter: Mapping[str, Any] = field(default_factory=dict)

    def finished_indexes(self) -> set[int]:
        return {record.index for record in self.records}

    def with_record(self, record: CandidateRecord) -> CampaignState:
        if record.index == 0:
            return replace(self, baseline=record)
        kept = tuple(r for r in self.records if r.index != record.index)
        return replace(self, records=tuple(sorted((*kept, record), key=lambda r: r.index)))

    def with_planned(self, planned: PlannedCandidate) -> CampaignState:
        kept = tuple(p for p in self.planned if p.index != planned.index)
        return replace(self, planned=tuple(sorted((*kept, planned), key=lambda p: p.index)))

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": STATE_SCHEMA,
            "campaign_id": self.campaign_id,
            "created_at": self.created_at,
            "baseline_ref": self.baseline_ref,
            "fingerprint": self.fingerprint.to_json(),
            "fingerprint_digest": self.fingerprint.digest,
            "evaluator": ref_to_json(self.evaluator),
            "metric": {"name": self.metric_name, "direction": self.direction},
            "goal": self.goal,
            "sandbox": self.sandbox,
            "planned": [p.to_json() for p in self.planned],
            "baseline": self.baseline.to_json() if self.baseline is not None else None,
            "records": [r.to_json() for r in self.records],
            "complete": self.complete,
            "delivered_branch": self.delivered_branch,
            "notes": list(self.notes),
            "noise": self.noise.to_json(),
            **({"prompt": dict(self.prompt)} if self.prompt else {}),
            "finished_at": self.finished_at,
            "proctor_version": self.proctor_version,
            **({"interpreter": dict(self.interpreter)} if self.interpreter else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CampaignState:
        if data.get("schema") != STATE_SCHEMA:
            raise ValueError(f"unsupported state schema {data.get('schema')!r}")
        baseline = data.get("baseline")
        return cls(
            campaign_id=str(data["campaign_id"]),
            created_at=str(data["created_at"]),
            baseline_ref=str(data["baseline_ref"]),
            fingerprint=Fingerprint.from_json(data["fingerprint"]),
            evaluator=ref_from_json(data["evaluator"]),
            metric_name=str(data["metric"]["name"]),
            direction=str(data["metric"]["direction"]),
            goal=str(data.get("goal", "")),
            sandbox=str(data.get("sandbox", "")),
            planned=tuple(PlannedCandidate.from_json(p) for p in data.get("planned", [])),
            baseline=CandidateRecord.from_json(baseline) if baseline is not None else None,
            records=tuple(CandidateRecord.from_json(r) for r in data.get("records", [])),
            complete=bool(data.get("complete", False)),
            delivered_branch=data.get("delivered_branch"),
            notes=tuple(str(n) for n in data.get("notes", [])),
            prompt=dict(data.get("prompt") or {}),
            noise=_noise(data.get("noise")),
            finished_at=str(data.get("finished_at", "")),
            proctor_version=str(data.get("proctor_version", "")),
            interpreter=dict(data.get("interpreter") or {}),
        )


def _noise(data: Any) -> NoiseRule:
    """The stored noise rule; a checkpoint written before it existed gets the defaults."""
    if not isinstance(data, Mapping):
        return NoiseRule()
    defaults = NoiseRule()
    return NoiseRule(
        float(data.get("min_improvement", defaults.threshold)),
        float(data.get("significance", defaults.significance)),
    )


def campaign_dir(repo: Path, campaign_id: str) -> Path:
    return proctor_dir(repo) / "campaigns" / campaign_id


def state_path(repo: Path, campaign_id: str) -> Path:
    return campaign_dir(repo, campaign_id) / "state.json"


def save_state(repo: Path, state: CampaignState) -> None:
    atomic_write_json(state_path(repo, state.campaign_id), state.to_json())


def load_state(repo: Path, campaign_id: str) -> CampaignState:
    path = state_path(repo, campaign_id)
    if not path.is_file():
        raise CampaignError(f"no campaign {campaign_id!r} to resume: {path} does not exist", path=path)
    try:
        return CampaignState.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise CampaignError(f"{path}: not a valid campaign checkpoint ({exc})", path=path) from None


def latest_campaign(repo: Path) -> str:
    """The most recently created campaign with a checkpoint (what `--resume` without an id continues)."""
    root = proctor_dir(repo) / "campaigns"
    found: list[tuple[str, str]] = []
    if root.is_dir():
        for child in sorted(root.iterdir()):
            path = child / "state.json"
            if not path.is_file():
                continue
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                found.append((str(data.get("created_at", "")), child.name))
            except (OSError, UnicodeDecodeError, ValueError):
                continue
    if not found:
        raise CampaignError(f"nothing to resume: no campaign checkpoint under {root}", path=root)
    return max(found)[1]


def new_campaign_id(now: datetime | None = None) -> str:
    moment = now or datetime.now(UTC)
    salt = hashlib.sha256(moment.isoformat().encode()).hexdigest()[:6]
    return f"{moment:%Y%m%d-%H%M%S}-{salt}"


def check_campaign_id(campaign_id: str) -> str:
    """A campaign id becomes a directory and a branch name: keep it to a safe alphabet."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", campaign_id) or ".." in campaign_id:
        raise CampaignError(
            f"campaign id must be 1-100 characters of letters, digits, '.', '_' or '-', found {campaign_id!r}"
        )
    return campaign_id
