"""`proctor init` (SPEC §3.4): write `<suite>/evaluate.py` from the brief's Measured-by protocol.

The evaluator is filled from the parsed protocol (data, split with its seed, metric and direction, the print
format) and the config's `entry_point`; it calls the candidate in a subprocess, has `--fast`, writes
result.json and fails loudly on a malformed submission, so it passes `proctor check` with no error.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from core.atomic import atomic_write_text
from core.brief import Protocol, metric_key, parse_brief
from core.config import CONFIG_FILE, PYPROJECT_FILE, Config, evaluator_entry
from core.errors import IncompleteProtocol, ProctorError, WorkspaceError

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
        raise WorkspaceError(
            f"{brief_path}: no brief (write one with a `Measured by` line first)", path=brief_path
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkspaceError(f"{brief_path}: cannot read: {exc}", path=brief_path) from None
    protocol = parse_brief(text).protocol
    if protocol is None:
        raise IncompleteProtocol(brief_rel, ["Measured by line"])
    if protocol.missing():
        raise IncompleteProtocol(brief_rel, protocol.missing())
    entry = evaluator_entry(config) or f"{config.evaluation_dir}/evaluate.py"
    target = workspace / entry
    if target.exists() and not force:
        raise WorkspaceError(f"{target} already exists (use --force to overwrite it)", path=target)
    metric = _metric(protocol)
    notes: list[str] = []
    data_path, train_path = _data_paths(protocol, config, brief_rel)
    holdout = _holdout(workspace, config)
    holdout_file = PurePosixPath(data_path).name if holdout is not None else ""
    labelled = holdout / holdout_file if holdout is not None else workspace / data_path
    if holdout is not None:
        notes.append(f"the labelled data is read from $PROCTOR_HOLDOUT_DIR/{holdout_file} (holdout_dir)")
    column = _label_column(labelled, notes, label)
    entry_point = config.entry_point or DEFAULT_ENTRY_POINT
    ratios = protocol.split_ratios
    folds = protocol.folds
    test_fraction = ratios[-1] if ratios else 0.2
    if protocol.fixed_split:
        trained = (
            f"training rows from {train_path}" if train_path else "no training rows (the brief names none)"
        )
        notes.append(f"fixed split: the test rows are {data_path}, {trained}; no seed is needed")
    elif not ratios and not folds:
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
        train_path=train_path,
        fixed_split=protocol.fixed_split,
        holdout_file=holdout_file,
        seed=protocol.seed_value,
        test_fraction=round(test_fraction, 6),
        folds=folds,
        metric=metric,
        print_name=protocol.metric_name or metric,
        direction=direction,
    )
    atomic_write_text(target, source)
    if not config.entry_point:
        written = write_entry_point(workspace, entry_point)
        notes.append(
            f"entry_point = {entry_point!r} written to {written} (the candidate the evaluator calls)"
        )
    return Scaffold(target, metric, column, entry_point, tuple(notes))


_TABLE = re.compile(r"^\s*\[", re.MULTILINE)
_TOOL_PROCTOR = re.compile(r"^\s*\[\s*tool\s*\.\s*proctor\s*\]\s*(?:#.*)?$", re.MULTILINE)


def write_entry_point(workspace: Path, entry_point: str) -> str:
    """Record `entry_point` in the config so the first `verify` runs every clause (fails-loudly needs it):
    in proctor.toml (created if need be), or under [tool.proctor] when pyproject.toml holds the config."""
    line = f"entry_point = {json.dumps(entry_point)}\n"
    toml, pyproject = workspace / CONFIG_FILE, workspace / PYPROJECT_FILE
    if not toml.is_file() and pyproject.is_file():
        text = pyproject.read_text(encoding="utf-8")
        header = _TOOL_PROCTOR.search(text)
        if header is not None:
            at = text.find("\n", header.end())
            at = len(text) if at < 0 else at + 1
            atomic_write_text(
                pyproject, text[:at] + ("" if text[:at].endswith("\n") else "\n") + line + text[at:]
            )
            return PYPROJECT_FILE
    text = toml.read_text(encoding="utf-8") if toml.is_file() else ""
    first_table = _TABLE.search(text)  # top-level keys go before the first [table]
    at = first_table.start() if first_table else len(text)
    head = text[:at]
    if head and not head.endswith("\n"):
        head += "\n"
    atomic_write_text(toml, head + line + text[at:])
    return CONFIG_FILE


def _holdout(workspace: Path, config: Config) -> Path | None:
    """The hold-out directory (`holdout_dir`, or $PROCTOR_HOLDOUT_DIR), or None when there is none."""
    from core.run.isolation import resolve_holdout

    found = resolve_holdout(config.holdout_dir, workspace)
    return Path(found) if found else None


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


def _data_path(value: str, config: Config) -> str:
    value = value.strip("`'\" ")
    if "/" not in value and not value.endswith(".csv"):
        return f"{config.data_dir}/{value}.csv"
    return value


def _data_paths(protocol: Protocol, config: Config, brief: str) -> tuple[str, str]:
    """(the labelled rows to score, the training rows' file or "" when they are drawn from the same file).

    A fixed split scores the file that holds its test rows and trains on the data file when that is another
    file; a fixed split that names no file ("the official dev set") cannot be scaffolded: Proctor does not
    know which rows it means, and drawing a random split instead would measure something else."""
    assert protocol.data is not None
    data = _data_path(protocol.data.value, config)
    if not protocol.fixed_split:
        return data, ""
    test = protocol.split_file
    if test is None:
        split = protocol.split.value if protocol.split else ""
        raise IncompleteProtocol(brief, [f"the file that holds the test rows of the fixed split {split!r}"])
    test = _data_path(test, config)
    return test, "" if test == data else data


def _label_column(data: Path, notes: list[str], label: str | None) -> str:
    """The label is the data's last column unless --label says otherwise; a label that is not a column of
    the data is an error naming the columns (the evaluator would fail on its first row)."""
    try:
        with data.open(newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle), [])
    except OSError:
        chosen = label or "label"
        notes.append(f"{data.name} not found: the label column is assumed to be `{chosen}` (use --label)")
        return chosen
    if not header:
        raise WorkspaceError(f"{data}: empty data file, cannot find the label column", path=data)
    if label is not None:
        if label not in header:
            columns = ", ".join(header)
            raise WorkspaceError(
                f"{data}: no column {label!r} for --label; the columns are: {columns}", path=data
            )
        return label
    notes.append(f"label column: `{header[-1]}` (the last column; use --label to choose another)")
    return header[-1]
