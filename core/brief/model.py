"""The parsed brief: its Goal, sections and the `Measured by` protocol, each field with its source range."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.brief.vocabulary import FIXED_SPLIT_FILE, RANDOM_SPLIT, RATIO_CORE, ratios
from core.diagnostics import Position, Range


@dataclass(frozen=True)
class Field:
    """One protocol field: the value as written (normalised where noted) and where it is written."""

    value: str
    range: Range


@dataclass(frozen=True)
class Goal:
    text: str
    range: Range


@dataclass(frozen=True)
class Section:
    """An ATX heading and its body (up to the next heading of the same or a higher level)."""

    title: str
    level: int
    range: Range
    text: str


@dataclass(frozen=True)
class Protocol:
    """The parsed `Measured by` line.

    `direction` is normalised to `maximize` or `minimize`, `seed` to its digits; the other values are as written
    (`metric` may be `ROC AUC`; compare names with `same_metric`). `print_format` is the `name: value` shape the
    evaluator must print last. `append_at` is where text appended to the protocol goes (before a final period).
    """

    range: Range
    label_range: Range
    text: str
    data: Field | None
    split: Field | None
    seed: Field | None
    metric: Field | None
    direction: Field | None
    print_format: Field | None
    print_name_range: Range | None
    append_at: Position
    placeholders: tuple[str, ...] = ()  # `<split: ...>`-style blanks a fix left for the user to fill

    @property
    def print_name(self) -> str | None:
        """The metric name in the print format (`auc` in "printed as `auc: <value>`")."""
        if self.print_format is None:
            return None
        return self.print_format.value.split(":", 1)[0].strip()

    @property
    def metric_name(self) -> str | None:
        """The name the evaluator should print: the print format's name, else the metric as a grammar name."""
        if self.print_name:
            return self.print_name
        if self.metric is None:
            return None
        name = re.sub(r"[^A-Za-z0-9_.\-]+", "_", self.metric.value.strip()).strip("_").lower()
        return name if name and not name[0].isdigit() else None

    @property
    def seed_value(self) -> int | None:
        return int(self.seed.value) if self.seed is not None else None

    @property
    def split_ratios(self) -> tuple[float, ...] | None:
        """(0.8, 0.2) for "80/20"; None when the split is not a ratio."""
        if self.split is None:
            return None
        match = RATIO_CORE.search(self.split.value)
        return ratios(match.group(0)) if match else None

    @property
    def fixed_split(self) -> bool:
        """The split is fixed in advance (a pre-split file such as `test.csv`, a named or pinned shard, "the
        official dev set"), not drawn at random: it needs no seed."""
        if self.split is None or self.split_ratios is not None or self.folds is not None:
            return False
        return RANDOM_SPLIT.search(self.split.value) is None

    @property
    def folds(self) -> int | None:
        """k for "5-fold CV"; None when the split is not k-fold (or k is not a number)."""
        if self.split is None:
            return None
        match = re.search(r"(\d+|three|five|ten)[\s-]?fold", self.split.value, re.IGNORECASE)
        if match is None:
            return None
        word = match.group(1).lower()
        return {"three": 3, "five": 5, "ten": 10}.get(word) or (int(word) if word.isdigit() else None)

    @property
    def split_file(self) -> str | None:
        """The file that holds the held-out rows of a fixed split (`kapso_datasets/test.csv`), when it names
        one; None for a drawn split, or a fixed one named without a file ("the official dev set")."""
        if not self.fixed_split:
            return None
        for field in (self.split, self.data):
            found = FIXED_SPLIT_FILE.search(field.value) if field is not None else None
            if found is not None and not found.group(0).endswith("/"):
                return found.group(0)
        return None

    def missing(self) -> list[str]:
        """Names of the fields the protocol does not state (what `proctor init` cannot guess); a fixed split
        needs no seed."""
        fields = {
            "data": self.data,
            "split": self.split,
            "seed": self.seed or (self.split if self.fixed_split else None),
            "metric": self.metric,
            "direction": self.direction,
            "print_format": self.print_format,
        }
        return [name for name, value in fields.items() if value is None]

    def as_dict(self) -> dict[str, str | None]:
        """Field values for hover text and JSON."""
        return {
            "data": _value(self.data),
            "split": _value(self.split),
            "seed": _value(self.seed),
            "metric": _value(self.metric),
            "direction": _value(self.direction),
            "print_format": _value(self.print_format),
        }


def _value(field: Field | None) -> str | None:
    return field.value if field is not None else None


@dataclass(frozen=True)
class Brief:
    goal: Goal | None
    protocol: Protocol | None
    sections: tuple[Section, ...]

    def section(self, title: str) -> Section | None:
        """The first section whose title starts with `title` (any case)."""
        wanted = title.lower()
        for section in self.sections:
            if section.title.lower().startswith(wanted):
                return section
        return None

    @property
    def rules(self) -> Section | None:
        return self.section("rules")

    @property
    def data(self) -> Section | None:
        return self.section("data")
