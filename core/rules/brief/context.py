"""What the brief rules share: the parsed brief (once per document), diagnostics and append-style fixes.

A fix is offered only when it resolves its finding: it names real data and a real metric (read from the
workspace, the config or the evaluator), never a `<placeholder>` that would keep firing and pile up under
`--fix`. BR001's template is the exception: it resolves BR001 and leaves placeholders for BR005/BR006 to name.

The fixes that complete a protocol all append to the `Measured by` text at one point (before its final
period); `core.fixes` applies same-point insertions in rule order, so "on <data>", the split, the seed, the
metric and the print format read in that order when several are applied at once.
"""

from __future__ import annotations

import re
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from core.brief import Brief, Protocol, parse_brief, same_metric, split_lines
from core.config_view import evaluator_entry
from core.diagnostics import Diagnostic, Fix, Position, Range, Related, Severity, TextEdit
from core.rules.base import LintContext

if TYPE_CHECKING:
    from core.rules.evaluator.metric import MetricPrint

_SEED_IN_SOURCE = re.compile(r"\b(?:seed|random_state|SEED|RANDOM_STATE|RNG_SEED)\b\s*[=(:]\s*(\d+)")


@lru_cache(maxsize=8)
def _printed_metric(source: str) -> MetricPrint | None:
    """Cached by evaluator text: the editor re-lints a brief on every keystroke, the evaluator rarely changes."""
    from core.rules.evaluator.metric import printed_metric

    return printed_metric(source)


class BriefContext:
    """One brief document being linted, with lazily computed facts several rules need."""

    def __init__(self, relpath: str, text: str, lint: LintContext) -> None:
        self.relpath = relpath
        self.text = text
        self.lint = lint
        self.lines = split_lines(text)
        self.brief: Brief = parse_brief(text)

    @property
    def protocol(self) -> Protocol | None:
        return self.brief.protocol

    def diagnostic(
        self,
        code: str,
        name: str,
        severity: Severity,
        range_: Range,
        message: str,
        fix: Fix | None = None,
        related: tuple[Related, ...] = (),
    ) -> Diagnostic:
        return Diagnostic(code, name, severity, self.relpath, range_, message, fix, related)

    def line_range(self, line: int) -> Range:
        line = min(max(line, 0), len(self.lines) - 1)
        return Range.of(line, 0, line, len(self.lines[line]))

    def protocol_first_line(self) -> Range:
        """The squiggle for a field the protocol lacks: the Measured by line itself (its first line)."""
        assert self.protocol is not None
        start = self.protocol.range.start
        return Range(start, Position(start.line, len(self.lines[start.line])))

    # fixes ----------------------------------------------------------------------------------------------------

    def insert(self, title: str, at: Position, text: str) -> Fix:
        return Fix(title, (TextEdit(self.relpath, Range(at, at), text),))

    def after_metric(self) -> Position | None:
        """Just after the metric and a parenthesis that follows it ("AUC (higher is better)"), or None when
        the metric is not written in the protocol's prose."""
        protocol = self.protocol
        if protocol is None or protocol.metric is None or protocol.metric.range.end >= protocol.append_at:
            return None
        end = protocol.metric.range.end
        following = re.match(r"\s*\([^()\n]*\)", self.lines[end.line][end.character :])
        return Position(end.line, end.character + following.end()) if following else end

    def append(self, title: str, phrase: str) -> Fix:
        """Append `phrase` to the protocol text: `, phrase` (or ` phrase` when `phrase` starts with "on ")."""
        assert self.protocol is not None
        joiner = " " if phrase.startswith(("on ", "(")) or not self.protocol.text else ", "
        return self.insert(title, self.protocol.append_at, joiner + phrase)

    # facts from the rest of the workspace ---------------------------------------------------------------------

    @cached_property
    def evaluator_path(self) -> str | None:
        return evaluator_entry(self.lint.config)

    @cached_property
    def evaluator_source(self) -> str | None:
        if self.evaluator_path is None:
            return None
        return self.lint.read_file(self.evaluator_path)

    @cached_property
    def evaluator_print(self) -> MetricPrint | None:
        """The evaluator's metric print (BR008), None without an evaluator or without a print."""
        source = self.evaluator_source
        return _printed_metric(source) if source is not None else None

    def metric_hint(self) -> str | None:
        """A metric name for templates: the evaluator's printed name (when it agrees with the brief), config, brief."""
        printed = self.evaluator_print.name if self.evaluator_print is not None else None
        brief_metric = self.protocol.metric.value if self.protocol and self.protocol.metric else None
        if printed and (brief_metric is None or same_metric(printed, brief_metric)):
            return printed
        if self.lint.config.metric:
            return self.lint.config.metric
        if self.protocol is not None and self.protocol.metric_name:
            return self.protocol.metric_name
        return printed

    def data_hint(self) -> str | None:
        """The data directory when the workspace has it (None otherwise: a fix must not invent data)."""
        data_dir = self.lint.config.data_dir.strip("/")
        can_look = self.lint.workspace is not None or self.lint.exists is not None
        if can_look and data_dir and self.lint.path_exists(data_dir):
            return f"{data_dir}/"
        return None

    def seed_hint(self) -> int | None:
        """The seed the evaluator already uses, so the brief states the truth; None when it sets none."""
        match = _SEED_IN_SOURCE.search(self.evaluator_source or "")
        return int(match.group(1)) if match else None

    def direction_phrase(self) -> str:
        """The configured direction when the config says it, else a blank: a fix must not guess it."""
        if "direction" in self.lint.config.model_fields_set:
            return "higher is better" if self.lint.config.direction == "maximize" else "lower is better"
        return "<direction: higher or lower is better>"
