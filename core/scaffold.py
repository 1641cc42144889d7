"""`proctor init` (SPEC §3.4): write `<suite>/evaluate.py` from the brief's Measured-by protocol.

The evaluator is filled from the parsed protocol (data, split with its seed, metric and direction, the print
format) and the config's `entry_point`; it calls the candidate in a subprocess, has `--fast`, writes
result.json and fails loudly on a malformed submission, so it passes `proctor check` with no error.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from core.atomic import atomic_write_text
from core.brief import Protocol, metric_key, parse_brief
from core.config import Config, evaluator_entry
from core.errors import ProctorError, WorkspaceError

TEMPLATE = Path(__file__).resolve().parent / "templates" / "evaluate.py.tmpl"
DEFAULT_ENTRY_POINT = "solution/predict.py"

# metric_key() of a brief's metric name → the template's metric; the template implements exactly these.
SUPPORTED_METRICS = {
    "auc": "auc",
    "accuracy": "accuracy",
    "acc": "accuracy",
    "f1": "f1",
    "rmse": "rmse",
    "mae": "mae",
    "mse": "mse",
    "r2": "r2",
    "log_loss": "log_loss",
    "logloss": "log_loss",
    "cross_entropy": "log_loss",
}


class IncompleteProtocol(ProctorError):
    """The brief does not state what the evaluator needs; `missing` names the fields (BR00x)."""

    def __init__(self, brief: str, missing: list[str]) -> None:
        super().__init__(f"{brief}: the Measured by protocol does not state: {', '.join(missing)}")
        self.missing = missing


@dataclass(frozen=True)
class Scaffold:
    path: Path
    metric: str
    label: str
    entry_point: str
    notes: tuple[str, ...]


def scaffold_evaluator(
    workspace: Path,
    config: Config,
    *,
    brief: str | None = None,
    label: str | None = None,
    force: bool = False,
) -> Scaffold:
    """Write the evaluator; raises IncompleteProtocol when the brief lacks a field, ProctorError otherwise."""
    brief_rel = brief or config.brief
    brief_path = workspace / brief_rel
    try:
        text = brief_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WorkspaceError(f"{brief_path}: no brief (write one with a `Measured by` line first)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkspaceError(f"{brief_path}: cannot read: {exc}") from None
    protocol = parse_brief(text).protocol
    if protocol is None:
        raise IncompleteProtocol(brief_rel, ["Measured by line"])
    if protocol.missing():
        raise IncompleteProtocol(brief_rel, protocol.missing())
    entry = evaluator_entry(config) or f"{config.evaluation_dir}/evaluate.py"
    target = workspace / entry
    if target.exists() and not force:
        raise WorkspaceError(f"{target} already exists (use --force to overwrite it)")
    metric = _metric(protocol)
    notes: list[str] = []
    data_path = _data_path(protocol, config)
    column = label or _label_column(workspace / data_path, notes)
    entry_point = config.entry_point or DEFAULT_ENTRY_POINT
    if not config.entry_point:
        notes.append(f"no entry_point in the config: the evaluator calls {entry_point}")
    ratios = protocol.split_ratios
    folds = protocol.folds
    test_fraction = ratios[-1] if ratios else 0.2
    if not ratios and not folds:
        notes.append(
            f"the split {protocol.split.value if protocol.split else ''!r} is not a ratio: 80/20 used"
        )
    direction = protocol.direction.value if protocol.direction else config.direction
    suite = PurePosixPath(entry).parent.as_posix()
    source = TEMPLATE.read_text(encoding="utf-8").format(
        brief_name=brief_rel,
        suite=suite,
        protocol_text=" ".join(protocol.text.split()),
        entry_point=entry_point,
        label=column,
        data_path=data_path,
        seed=protocol.seed_value,
        test_fraction=round(test_fraction, 6),
        folds=folds,
        metric=metric,
        print_name=protocol.metric_name or metric,
        direction=direction,
    )
    atomic_write_text(target, source)
    return Scaffold(target, metric, column, entry_point, tuple(notes))


def _metric(protocol: Protocol) -> str:
    names = [n for n in (protocol.metric.value if protocol.metric else None, protocol.print_name) if n]
    for name in names:
        found = SUPPORTED_METRICS.get(metric_key(name))
        if found:
            return found
    supported = ", ".join(sorted(set(SUPPORTED_METRICS.values())))
    raise ProctorError(
        f"cannot write an evaluator for metric {names[0]!r}: supported are {supported}; write it by hand"
    )


def _data_path(protocol: Protocol, config: Config) -> str:
    assert protocol.data is not None
    value = protocol.data.value.strip("`'\" ")
    if "/" not in value and not value.endswith(".csv"):
        return f"{config.data_dir}/{value}.csv"
    return value


def _label_column(data: Path, notes: list[str]) -> str:
    """The label is the data's last column unless --label says otherwise."""
    try:
        with data.open(newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle), [])
    except OSError:
        notes.append(f"{data.name} not found: the label column is assumed to be `label` (use --label)")
        return "label"
    if not header:
        raise WorkspaceError(f"{data}: empty data file, cannot find the label column")
    notes.append(f"label column: `{header[-1]}` (the last column; use --label to choose another)")
    return header[-1]
