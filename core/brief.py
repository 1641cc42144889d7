"""The brief parser (SPEC §3.2): the Goal, the `Measured by` protocol and the optional Rules/Data sections.

A brief is Markdown written by people, so the parser is liberal: "Measured by AUC (higher is better) on
kapso_datasets/churn.csv, an 80/20 stratified split with seed 42, printed as `auc: <value>`." and a
`Measured by:` line followed by a `- metric: auc` list read the same. Every field keeps its source range
(zero-based lines, code-point columns) so the rules (BR001–BR009), the editor's hover, `proctor init` and
campaigns (default metric and direction) share one reading of the brief.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from core.diagnostics import Position, Range
from core.lines import split_lines

__all__ = [
    "Brief",
    "Field",
    "Goal",
    "Protocol",
    "Section",
    "fenced_lines",
    "find_metric_names",
    "metric_key",
    "parse_brief",
    "protocol_at",
    "same_metric",
    "split_lines",
    "visible_lines",
    "workspace_paths",
]


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
        match = _RATIO_CORE.search(self.split.value)
        return _ratios(match.group(0)) if match else None

    @property
    def fixed_split(self) -> bool:
        """The split is fixed in advance (a pre-split file such as `test.csv`, a named or pinned shard, "the
        official dev set"), not drawn at random: it needs no seed."""
        if self.split is None or self.split_ratios is not None or self.folds is not None:
            return False
        return _RANDOM_SPLIT.search(self.split.value) is None

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

    def missing(self) -> list[str]:
        """Names of the fields the protocol does not state (what `proctor init` cannot guess)."""
        fields = {
            "data": self.data,
            "split": self.split,
            "seed": self.seed,
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


# --------------------------------------------------------------------------------------------------------------
# Markdown structure

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+")
_EMPH = r"(?:\*\*|__|\*|_)?"
_MEASURED = re.compile(
    r"^(?P<lead>[ \t]{0,3}(?:>[ \t]*)*(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:#{1,6}[ \t]+)?)"
    rf"(?P<label>{_EMPH}[ \t]*measured[ \t-]+by\b[ \t]*{_EMPH}[ \t]*[:\-–—]?[ \t]*{_EMPH})",
    re.IGNORECASE,
)
_GOAL_LINE = re.compile(
    rf"^[ \t]{{0,3}}(?:>[ \t]*)*(?:(?:[-*+]|\d+[.)])[ \t]+)?{_EMPH}[ \t]*goals?[ \t]*{_EMPH}[ \t]*:[ \t]*{_EMPH}[ \t]*",
    re.IGNORECASE,
)
_OTHER_LABEL = re.compile(
    rf"^[ \t]{{0,3}}(?:(?:[-*+]|\d+[.)])[ \t]+)?{_EMPH}[ \t]*(?:goals?|rules|constraints|notes?)[ \t]*{_EMPH}[ \t]*:",
    re.IGNORECASE,
)


def fenced_lines(lines: Sequence[str]) -> set[int]:
    """Line numbers inside (or opening/closing) fenced code blocks: never read as brief structure."""
    fenced: set[int] = set()
    marker: str | None = None
    for number, line in enumerate(lines):
        match = _FENCE.match(line)
        if marker is None:
            if match:
                marker = match.group(1)
                fenced.add(number)
        else:
            fenced.add(number)
            if match and match.group(1)[0] == marker[0] and len(match.group(1)) >= len(marker):
                marker = None
    return fenced


_COMMENT_OPEN = "<!--"
_COMMENT_CLOSE = "-->"


def visible_lines(text: str) -> tuple[list[str], set[int]]:
    """The brief's lines with HTML comments blanked out, and the fenced lines.

    A comment (`<!-- ... -->`, possibly over several lines) is not brief text: a commented-out `Measured by`
    line or a `<!-- proctor: noqa: BR004 -->` marker must not be read as the protocol or its fields. Comment
    characters become spaces so every position (line, code-point column) stays where it was; a line that held
    only a comment becomes blank, which ends a paragraph as the HTML block does in Markdown. Comment markers
    inside fenced code blocks are literal text and stay.
    """
    lines = split_lines(text)
    fenced = fenced_lines(lines)
    visible: list[str] = []
    inside = False
    for number, line in enumerate(lines):
        if number in fenced:
            visible.append(line)
            continue
        parts: list[str] = []
        position = 0
        while position < len(line):
            if inside:
                close = line.find(_COMMENT_CLOSE, position)
                end = len(line) if close < 0 else close + len(_COMMENT_CLOSE)
                parts.append(" " * (end - position))
                inside = close < 0
                position = end
            else:
                start = line.find(_COMMENT_OPEN, position)
                if start < 0:
                    parts.append(line[position:])
                    break
                parts.append(line[position:start])
                inside = True
                position = start
        visible.append("".join(parts))
    return visible, fenced


def _sections(lines: Sequence[str], fenced: set[int]) -> tuple[Section, ...]:
    headings: list[tuple[int, int, str]] = []
    for number, line in enumerate(lines):
        if number in fenced:
            continue
        match = _HEADING.match(line)
        if match:
            headings.append((number, len(match.group(1)), (match.group(2) or "").strip()))
    sections = []
    for index, (number, level, title) in enumerate(headings):
        end = len(lines) - 1
        for later, later_level, _title in headings[index + 1 :]:
            if later_level <= level:
                end = later - 1
                break
        while end > number and not lines[end].strip():
            end -= 1
        body = "\n".join(lines[number + 1 : end + 1]).strip()
        sections.append(Section(title, level, Range.of(number, 0, end, len(lines[end])), body))
    return tuple(sections)


def _goal(lines: Sequence[str], fenced: set[int], sections: Sequence[Section]) -> Goal | None:
    goal_section = next((s for s in sections if re.match(r"goals?\b", s.title, re.IGNORECASE)), None)
    goal_line: Goal | None = None
    for number, line in enumerate(lines):
        if number in fenced or _HEADING.match(line):
            continue
        match = _GOAL_LINE.match(line)
        if match is None:
            continue
        end = number
        parts = [line[match.end() :].strip()]
        while end + 1 < len(lines) and lines[end + 1].strip() and (end + 1) not in fenced:
            following = lines[end + 1]
            if _HEADING.match(following) or _LIST_ITEM.match(following) or _OTHER_LABEL.match(following):
                break
            if _MEASURED.match(following):
                break
            end += 1
            parts.append(following.strip())
        goal_line = Goal(" ".join(p for p in parts if p), Range.of(number, 0, end, len(lines[end])))
        break
    if goal_section is not None and (goal_line is None or goal_section.range.start <= goal_line.range.start):
        # The goal is the text up to the next heading of any level (a `## Rules` under `# Goal` is not the goal).
        start = goal_section.range.start.line
        end = start
        for number in range(start + 1, goal_section.range.end.line + 1):
            if number not in fenced and _HEADING.match(lines[number]):
                break
            if lines[number].strip():
                end = number
        title_rest = re.sub(r"^goals?\s*:?\s*", "", goal_section.title, flags=re.IGNORECASE)
        body = "\n".join(lines[start + 1 : end + 1]).strip()
        text = " ".join(part for part in (title_rest, body) if part)
        return Goal(text, Range.of(start, 0, end, len(lines[end])))
    return goal_line


# --------------------------------------------------------------------------------------------------------------
# The protocol text: segments of lines joined with "\n", with a map back to positions


class _Text:
    def __init__(self, segments: Sequence[tuple[int, int, str]]) -> None:
        self.segments = list(segments)
        self.offsets: list[int] = []
        parts = []
        offset = 0
        for _line, _col, chunk in self.segments:
            self.offsets.append(offset)
            parts.append(chunk)
            offset += len(chunk) + 1
        self.text = "\n".join(parts)

    def position(self, offset: int) -> Position:
        index = max(bisect.bisect_right(self.offsets, offset) - 1, 0)
        line, col, chunk = self.segments[index]
        return Position(line, col + min(offset - self.offsets[index], len(chunk)))

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(end))

    def field(self, value: str, start: int, end: int) -> Field:
        return Field(value, self.range(start, end))


def _protocol_lines(
    lines: Sequence[str], fenced: set[int]
) -> tuple[int, re.Match[str], list[tuple[int, int, str]]] | None:
    for number, line in enumerate(lines):
        if number in fenced:
            continue
        match = _MEASURED.match(line)
        if match is None:
            continue
        segments: list[tuple[int, int, str]] = []
        rest = line[match.end() :]
        stripped = rest.strip()
        if stripped:
            segments.append((number, match.end() + (len(rest) - len(rest.lstrip())), stripped))
        is_heading = "#" in match.group("lead")
        item = _LIST_ITEM.match(line)
        item_indent = len(item.group(1)) if item else None
        current = number + 1
        if not segments:  # "Measured by:" alone (or a heading): the protocol is the next paragraph or list
            while current < len(lines) and not lines[current].strip() and current - number <= 2:
                current += 1
        while current < len(lines) and current not in fenced:
            following = lines[current]
            if not following.strip() or _HEADING.match(following) or _OTHER_LABEL.match(following):
                break
            sub_item = _LIST_ITEM.match(following)
            if sub_item and item_indent is not None and len(sub_item.group(1)) <= item_indent:
                break
            content = re.sub(r"^[ \t]*(?:>[ \t]*)*", "", following)
            col = len(following) - len(content)
            content = content.rstrip()
            if content:
                segments.append((current, col, content))
            current += 1
        if is_heading and not segments:
            continue
        return number, match, segments
    return None


# --------------------------------------------------------------------------------------------------------------
# Field patterns

_KEYS = r"(?:data(?:set)?|data[ \t]+file|input|split|seed|random[_ \t]state|metric|direction|goal|rules)"

_METRIC_ALIASES: dict[str, str] = {
    # canonical keys for names that mean the same measurement (compared after normalisation, see metric_key)
    "auc": "auc",
    "roc auc": "auc",
    "rocauc": "auc",
    "roc": "auc",
    "auroc": "auc",
    "auc roc": "auc",
    "aucroc": "auc",
    "area under the roc curve": "auc",
    "area under roc curve": "auc",
    "area under the curve": "auc",
    "area under curve": "auc",
    "pr auc": "pr_auc",
    "auprc": "pr_auc",
    "auc pr": "pr_auc",
    "aucpr": "pr_auc",
    "prauc": "pr_auc",
    "area under the precision recall curve": "pr_auc",
    "average precision": "average_precision",
    "ap": "average_precision",
    "acc": "accuracy",
    "accuracy": "accuracy",
    "top 1 accuracy": "accuracy",
    "top1 accuracy": "accuracy",
    "balanced accuracy": "balanced_accuracy",
    "f1": "f1",
    "f 1": "f1",
    "f measure": "f1",
    "f1 measure": "f1",
    "f": "f1",
    "macro f1": "macro_f1",
    "f1 macro": "macro_f1",
    "macro averaged f1": "macro_f1",
    "micro f1": "micro_f1",
    "f1 micro": "micro_f1",
    "weighted f1": "weighted_f1",
    "f1 weighted": "weighted_f1",
    "rmse": "rmse",
    "root mean squared error": "rmse",
    "root mean square error": "rmse",
    "mse": "mse",
    "mean squared error": "mse",
    "mae": "mae",
    "mean absolute error": "mae",
    "mape": "mape",
    "mean absolute percentage error": "mape",
    "r2": "r2",
    "r 2": "r2",
    "r squared": "r2",
    "rsquared": "r2",
    "coefficient of determination": "r2",
    "log loss": "log_loss",
    "logloss": "log_loss",
    "logistic loss": "log_loss",
    "cross entropy": "log_loss",
    "crossentropy": "log_loss",
    "binary cross entropy": "log_loss",
    "bce": "log_loss",
    "nll": "log_loss",
    "negative log likelihood": "log_loss",
    "wer": "wer",
    "word error rate": "wer",
    "cer": "cer",
    "character error rate": "cer",
    "mrr": "mrr",
    "mean reciprocal rank": "mrr",
    "em": "exact_match",
    "exact match": "exact_match",
    "mcc": "mcc",
    "matthews correlation": "mcc",
    "matthews correlation coefficient": "mcc",
    "qwk": "qwk",
    "quadratic weighted kappa": "qwk",
    "ppl": "perplexity",
    "perplexity": "perplexity",
    "miou": "miou",
    "mean iou": "miou",
}
# Tokens that name where or how a metric was computed, not which metric it is (`test_auc` is an AUC).
_METRIC_NOISE = frozenset(
    {
        "score",
        "test",
        "val",
        "valid",
        "validation",
        "holdout",
        "heldout",
        "eval",
        "evaluation",
        "the",
        "final",
    }
)

# Metric phrases recognised in prose; longest first so "roc auc" wins over "auc".
_METRIC_PHRASES = sorted(
    [
        r"roc[\s_-]?auc(?:[\s_-]?score)?",
        r"auc[\s_-]?roc",
        r"auroc",
        r"auc",
        r"pr[\s_-]?auc",
        r"auprc",
        r"area under (?:the )?(?:roc |precision[\s-]recall )?curve",
        r"average[\s_-]precision",
        r"mean average precision",
        r"map@\d+",
        r"(?:balanced |top[\s-]?[15] )?accuracy",
        r"(?:macro|micro|weighted)(?:[\s-]averaged)?[\s_-]?f1(?:[\s_-]score)?",
        r"f1[\s_-](?:macro|micro|weighted)",
        r"f1(?:[\s_-]score)?",
        r"f[\s-]?(?:measure|score)",
        r"precision(?:@\d+)?",
        r"recall(?:@\d+)?",
        r"root[\s-]mean[\s-]squared?[\s-]error",
        r"mean (?:squared|absolute|absolute percentage) error",
        r"rmse",
        r"rmsle",
        r"mse",
        r"mae",
        r"s?mape",
        r"r2",
        r"r\^2",
        r"r²",
        r"r[\s-]squared",
        r"coefficient of determination",
        r"log[\s_-]?loss",
        r"(?:binary |categorical )?cross[\s-]?entropy",
        r"negative log[\s-]likelihood",
        r"perplexity",
        r"bleu",
        r"sacrebleu",
        r"rouge(?:[\s_-]?(?:l|1|2|lsum))?",
        r"chrf\+*",
        r"meteor",
        r"exact[\s_-]match",
        r"word error rate",
        r"character error rate",
        r"wer",
        r"cer",
        r"ndcg(?:@\d+)?",
        r"mrr",
        r"mean reciprocal rank",
        r"hit[\s_-]?rate(?:@\d+)?",
        r"hits@\d+",
        r"m?iou",
        r"mean iou",
        r"dice(?:[\s_-]coefficient)?",
        r"pass@\d+",
        r"(?:p\d{2}[\s_-])?latency",
        r"throughput",
        r"run[\s_-]?time",
        r"wall[\s-]clock time",
        r"speed[\s-]?up",
        r"(?:quadratic[\s-]weighted |cohen'?s )?kappa",
        r"qwk",
        r"spearman(?:'s)?(?: correlation| rho)?",
        r"pearson(?:'s)?(?: correlation)?",
        r"matthews correlation(?: coefficient)?",
        r"mcc",
        r"gini",
        r"brier(?:[\s_-]score)?",
        r"ece",
        r"psnr",
        r"ssim",
        r"fid",
        r"win[\s_-]rate",
        r"success[\s_-]rate",
        r"pass[\s_-]rate",
        r"error[\s_-]rate",
        r"(?:mean |total )?reward",
        r"(?:validation |test )?loss",
    ],
    key=len,
    reverse=True,
)
_METRIC_WORDS = re.compile(r"(?<![\w@/.-])(?:" + "|".join(_METRIC_PHRASES) + r")(?![\w@/])", re.IGNORECASE)

_VALUE = (
    r"(?:<[^<>\n]{1,40}>|\{[^{}\n]{1,40}\}|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?%?"
    r"|[0XxN#](?:\.[0-9Xx#N]+)|value|float|number|score|\.\.\.|…)"
)
_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
_PRINT_QUOTED = re.compile(rf"[`\"'“](?P<name>{_NAME})[ \t]*:[ \t]*(?P<value>{_VALUE})[ \t]*[`\"'”]")
_PRINT_AFTER_VERB = re.compile(
    r"\b(?:printed|prints?|printing|reported|reports?|emitted|emits?|outputs?|logged|written|shown|displayed)"
    r"(?:[ \t]+(?:as|like))?(?:[ \t]+(?:the|a))?(?:[ \t]+(?:last|final))?(?:[ \t]+line)?[ \t]*:?[ \t]*"
    rf"(?P<name>{_NAME})[ \t]*:[ \t]*(?P<value>{_VALUE})",
    re.IGNORECASE,
)
_PRINT_PLACEHOLDER = re.compile(
    rf"(?<![\w`])(?P<name>{_NAME})[ \t]*:[ \t]*(?P<value><[^<>\n]{{1,40}}>|\{{[^{{}}\n]{{1,40}}\}})"
)

_DIRECTION = re.compile(
    r"(?P<max>\b(?:higher|larger|bigger|greater|more)(?:[ \t]+(?:values?|scores?|numbers?))?"
    r"(?:[ \t]+(?:is|are|means)|[ \t]*[=-]|[ \t]*-is-)?[ \t]*better\b|\bthe[ \t]+higher[ \t]+the[ \t]+better\b"
    r"|\bmaximi[sz](?:e|ed|es|ing)\b|\bas[ \t]+high[ \t]+as[ \t]+possible\b)"
    r"|(?P<min>\b(?:lower|smaller|less|fewer)(?:[ \t]+(?:values?|scores?|numbers?))?"
    r"(?:[ \t]+(?:is|are|means)|[ \t]*[=-]|[ \t]*-is-)?[ \t]*better\b|\bthe[ \t]+lower[ \t]+the[ \t]+better\b"
    r"|\bminimi[sz](?:e|ed|es|ing)\b|\bas[ \t]+low[ \t]+as[ \t]+possible\b)",
    re.IGNORECASE,
)
_DIRECTION_KV = re.compile(
    r"\bdirection\s*[:=]\s*[`'\"]?(?P<value>max(?:imi[sz]e)?|min(?:imi[sz]e)?)\b", re.I
)

_SEED = re.compile(
    r"\b(?:random[\s_-]?seed|random[\s_-]?state|rng[\s_-]?seed|seed(?:ed|s)?)\b[`'\"]?"
    r"(?:\s*(?:=|:|is|of|to|at|with|set\s+to|fixed\s+(?:at|to)|fixed\s+as)?\s*)[`'\"]?(?P<n>\d+)\b",
    re.IGNORECASE,
)
_SEED_AFTER = re.compile(r"\b(?P<n>\d+)\s+as\s+(?:the\s+)?(?:random\s+)?seed\b", re.IGNORECASE)

_SPLIT_WORDS = r"(?:stratified|random(?:ly)?|shuffled|grouped|temporal|time-based|chronological|fixed)"
_RATIO_CORE = re.compile(
    r"(?<![\w./])\d{1,2}(?:\.\d+)?%?[ \t]*/[ \t]*\d{1,2}(?:\.\d+)?%?(?:[ \t]*/[ \t]*\d{1,2}(?:\.\d+)?%?)?(?![\w/])"
    r"|(?<![\w./])0?\.\d+[ \t]*/[ \t]*0?\.\d+(?:[ \t]*/[ \t]*0?\.\d+)?(?![\w/])"
)
_RATIO = re.compile(
    rf"(?:{_SPLIT_WORDS}[ \t]+)*(?P<ratio>{_RATIO_CORE.pattern})"
    rf"(?:[ \t]+(?:{_SPLIT_WORDS}|train[/-]test|train[/-]val(?:idation)?(?:[/-]test)?))*"
    r"(?:[ \t]+(?:split|partition|hold[\s-]?out))?",
    re.IGNORECASE,
)
_RATIO_DASH = re.compile(
    rf"(?:{_SPLIT_WORDS}[ \t]+)*(?P<ratio>(?<![\w.])\d{{1,2}}[ \t]*[-:–][ \t]*\d{{1,2}}(?![\w]))"
    rf"(?:[ \t]+{_SPLIT_WORDS})*[ \t]+(?:train[/-]test[ \t]+)?split",
    re.IGNORECASE,
)
_SPLIT_OTHER = re.compile(
    r"\b(?:(?:stratified|grouped|group|repeated|nested|time[\s-]series)\s+)?(?:\d+|k|three|five|ten)[\s-]?folds?"
    r"(?:\s+(?:stratified\s+)?(?:cross[\s-]?validation|cv))?\b"
    r"|\b(?:stratified\s+)?cross[\s-]?validation\b|\bleave[\s-]one[\s-]out\b|\bloocv\b"
    r"|\b\d{1,2}(?:\.\d+)?\s*%\s+(?:of\s+(?:the\s+)?(?:rows|data|samples|examples|records)\s+)?"
    r"(?:held[\s-]out|hold[\s-]?out|as\s+(?:a\s+|the\s+)?(?:test|validation|hold[\s-]?out)(?:\s+set)?"
    r"|test(?:\s+set)?|validation(?:\s+set)?)"
    r"|\btest_size\s*=\s*0?\.\d+"
    r"|\btrain\s*/\s*(?:val(?:idation)?\s*/\s*)?test\b|\btrain\s*/\s*val(?:idation)?\b"
    r"|\b(?:(?:the|a|an|our|its)\s+)?(?:(?:stratified|random|fixed|official|provided|public|private|same)\s+)?"
    r"(?:(?:hold[\s-]?out|held[\s-]out)\s+)?"
    r"(?:hold[\s-]?out|held[\s-]out|validation|val|dev(?:elopment)?|test(?:ing)?|evaluation|eval)"
    r"\s+(?:set|split|fold|partition|data|rows)\b"
    r"|\b(?:time[\s-]based|temporal|chronological|out[\s-]of[\s-]time|random|stratified|group(?:ed)?)\s+split\b"
    r"|\bsplit\s+by\s+(?:date|time|user|group|customer|patient|session)\b"
    r"|\bsplit\s*[:=]\s*[`'\"]?(?:train|test|val(?:idation)?|dev|hold[\s-]?out)\b",
    re.IGNORECASE,
)

_DATA_KV = re.compile(
    r"\b(?:data(?:set)?|data\s+file|input)\s*[:=]\s*[`'\"]?(?P<value>[^\s`'\",;()<>]+)", re.IGNORECASE
)
_TOKEN = re.compile(r"[^\s`'\"()\[\],;<>{}|*]+")
_DATA_EXTENSIONS = frozenset(
    {
        "csv",
        "tsv",
        "parquet",
        "pq",
        "json",
        "jsonl",
        "ndjson",
        "npz",
        "npy",
        "feather",
        "arrow",
        "h5",
        "hdf5",
        "pkl",
        "pickle",
        "txt",
        "xlsx",
        "xls",
        "zip",
        "gz",
        "bz2",
        "xz",
        "tar",
        "db",
        "sqlite",
        "sqlite3",
        "avro",
        "orc",
        "tfrecord",
        "tfrecords",
        "jpg",
        "jpeg",
        "png",
        "wav",
        "mp3",
        "pt",
        "safetensors",
    }
)
_NOT_DATA_SEGMENTS = frozenset(
    {
        "train",
        "test",
        "val",
        "valid",
        "validation",
        "dev",
        "holdout",
        "hold-out",
        "and",
        "or",
        "higher",
        "lower",
        "better",
        "worse",
        "true",
        "false",
        "yes",
        "no",
        "input",
        "output",
        "in",
        "out",
        "min",
        "max",
        "it",
        "he",
        "she",
        "they",
        "read",
        "write",
        "pass",
        "fail",
    }
)
_DATASET_NAME = re.compile(
    r"\b(?:on|using|over|from|with|against)\s+(?:the\s+)?(?P<name>[\w.\-]+(?:\s+[\w.\-]+){0,3}?)\s+"
    r"(?:dataset|data\s+set|corpus|benchmark)\b"
    r"|\b(?:dataset|corpus|benchmark)\s+[`'\"]?(?P<name2>[\w.\-]+)"
    r"|\bon\s+(?:the\s+)?(?P<name3>[A-Z][A-Za-z]*[A-Z0-9][\w\-]*)",
)
_PLACEHOLDER = re.compile(r"^(?:<[^<>]*>|\{[^{}]*\}|todo|tbd|\?+|\.\.\.|…|x+)$", re.IGNORECASE)


def _ratios(text: str) -> tuple[float, ...] | None:
    parts = [p.strip().rstrip("%") for p in text.split("/")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        return None
    total = sum(values)
    if abs(total - 100) <= 0.5:
        return tuple(round(v / 100, 6) for v in values)
    if abs(total - 1) <= 0.005:
        return tuple(values)
    return None


def _earliest(candidates: Iterator[tuple[int, int]]) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    for start, end in candidates:
        if best is None or start < best[0] or (start == best[0] and end > best[1]):
            best = (start, end)
    return best


def _overlaps(start: int, end: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start < s_end and s_start < end for s_start, s_end in spans)


def _find_print_format(text: str) -> tuple[str, int, int, int, int] | None:
    """(value, start, end, name_start, name_end) of the earliest `name: value` print shape."""
    best: tuple[str, int, int, int, int] | None = None
    for pattern in (_PRINT_QUOTED, _PRINT_AFTER_VERB, _PRINT_PLACEHOLDER):
        for match in pattern.finditer(text):
            name = match.group("name")
            if re.fullmatch(_KEYS, name, re.IGNORECASE):
                continue
            value = f"{name}: {match.group('value')}"
            start = match.start("name")
            candidate = (value, start, match.end("value"), start, match.end("name"))
            if best is None or start < best[1]:
                best = candidate
            break
    return best


def _is_path_like(token: str, quoted: bool) -> bool:
    if _PLACEHOLDER.match(token) or re.fullmatch(r"[\d./%:-]+", token):
        return False
    if "://" in token:
        return True
    segments = [s for s in token.split("/") if s]
    if "/" in token:
        if not segments or all(
            s.lower() in _NOT_DATA_SEGMENTS or _METRIC_WORDS.fullmatch(s) for s in segments
        ):
            return False
        if quoted or token.endswith("/") or token.startswith((".", "~")):
            return True
        last = segments[-1]
        return bool(
            re.search(r"\.[A-Za-z0-9]{1,10}$", last)
            or "_" in segments[0]
            or "data" in segments[0].lower()
            or len(segments) >= 3
        )
    extension = token.rsplit(".", 1)[-1].lower() if "." in token else ""
    return extension in _DATA_EXTENSIONS and bool(re.match(r"[\w\-]", token))


_BACKTICKED = re.compile(r"`([^`\n]+)`")


def _find_data(text: str, avoid: Sequence[tuple[int, int]]) -> tuple[str, int, int] | None:
    for match in _DATA_KV.finditer(text):
        value = match.group("value").rstrip(".:!?")
        if value and not _PLACEHOLDER.match(value):
            return value, match.start("value"), match.start("value") + len(value)
    for match in _BACKTICKED.finditer(text):  # `kapso_datasets/my data.csv`: spaces kept
        value = match.group(1)
        if " " not in value.strip() or "/" not in value or "<" in value or ":" in value:
            continue
        if not _overlaps(match.start(1), match.end(1), avoid) and _is_path_like(
            value.replace(" ", "_"), True
        ):
            return value, match.start(1), match.end(1)
    for match in _TOKEN.finditer(text):
        if _overlaps(match.start(), match.end(), avoid):
            continue
        token = match.group(0).rstrip(".:!?")
        quoted = match.start() > 0 and text[match.start() - 1] in "`'\""
        if token and _is_path_like(token, quoted):
            return token, match.start(), match.start() + len(token)
    for match in _DATASET_NAME.finditer(text):
        group = next(g for g in ("name", "name2", "name3") if match.group(g))
        name = match.group(group)
        if _overlaps(match.start(group), match.end(group), avoid) or _PLACEHOLDER.match(name):
            continue
        words = name.lower().split()
        if _METRIC_WORDS.fullmatch(name) or (words and words[-1] in _NOT_DATA_SEGMENTS | {"held-out", "cv"}):
            continue
        if words and words[0] in {"a", "an", "this", "that", "each", "every", "our"}:
            continue
        return name, match.start(group), match.end(group)
    return None


# A blank to fill in: `<split: e.g. 80/20, or the file that holds the test set>`, `<seed: ...>`.
_FILL_IN = re.compile(r"<(?:split|seed|direction|data|metric)\b[^<>\n]*>", re.IGNORECASE)


def placeholder_for(protocol: Protocol, field_name: str) -> str | None:
    """The unfilled `<field_name: ...>` blank in the protocol, or None."""
    return next((p for p in protocol.placeholders if p[1:].lower().startswith(field_name)), None)


_RANDOM_SPLIT = re.compile(
    r"random|stratif|shuffl|fold|cross[\s-]?valid|\bcv\b|leave[\s-]one|bootstrap|test_size|%", re.IGNORECASE
)
# A file or directory that is itself the held-out part: `kapso_datasets/test.csv`, `answers.jsonl`, `dev/`.
_FIXED_SPLIT_FILE = re.compile(
    r"(?<![\w.\-])(?:[\w.\-]+/)*(?:[\w\-]*[_\-.])?(?:test|testing|answers?|dev|val|valid|validation|holdout"
    r"|hold[_\-]out|heldout|eval|evaluation|gold|private|public)(?:[_\-.][\w\-]*)?"
    r"(?:\.(?:csv|tsv|jsonl?|parquet|txt|npy|npz|pkl|feather|arrow|conllu?|xml|zip|gz)|/)(?![\w/])",
    re.IGNORECASE,
)
_PINNED_SHARD = re.compile(r"\b(?:shard|partition|split)\s*[#=:]?\s*[`'\"]?[\w\-]*\d[\w\-]*|\bpinned\b", re.I)


def _find_fixed_split(text: str) -> tuple[int, int] | None:
    """A split fixed in advance: a pre-split file named as the test/dev/answer part, or a pinned shard."""
    found = _FIXED_SPLIT_FILE.search(text) or _PINNED_SHARD.search(text)
    return found.span() if found else None


def _find_split(text: str, avoid: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    def candidates() -> Iterator[tuple[int, int]]:
        for match in _RATIO.finditer(text):
            if _ratios(match.group("ratio")) is not None and not _overlaps(match.start(), match.end(), avoid):
                yield match.start(), match.end()
        for match in _RATIO_DASH.finditer(text):
            parts = re.split(r"[-:–]", match.group("ratio"))
            if abs(sum(float(p) for p in parts) - 100) <= 0.5 and not _overlaps(
                match.start(), match.end(), avoid
            ):
                yield match.start(), match.end()
        for match in _SPLIT_OTHER.finditer(text):
            if not _overlaps(match.start(), match.end(), avoid):
                yield match.start(), match.end()

    found = _earliest(candidates())
    if found is None:
        return None
    start, end = found
    while start < end and text[start] in " \t":
        start += 1
    lead = re.match(r"(?:the|a|an|our|its)\s+", text[start:end], re.IGNORECASE)
    if lead:
        start += lead.end()
    return start, end


def _find_metric(text: str, avoid: Sequence[tuple[int, int]]) -> tuple[str, int, int] | None:
    kv = re.search(
        r"\bmetric\s*[:=]\s*[`'\"]?(?P<value>[A-Za-z_][\w.@\-]*(?:[ \t]+[A-Za-z_][\w@\-]*){0,2})", text, re.I
    )
    if kv:
        value = kv.group("value")
        head = _METRIC_WORDS.match(value)
        value = head.group(0) if head else value.split()[0]
        if not _PLACEHOLDER.match(value):
            return value, kv.start("value"), kv.start("value") + len(value)
    for match in _METRIC_WORDS.finditer(text):
        if not _overlaps(match.start(), match.end(), avoid):
            return match.group(0), match.start(), match.end()
    for pattern in (_LEAD_IDENTIFIER, _LEAD_PHRASE):
        lead = pattern.match(text)
        if lead is None:
            continue
        group = "quoted" if lead.groupdict().get("quoted") else "value"
        if not _overlaps(lead.start(group), lead.end(group), avoid):
            return lead.group(group), lead.start(group), lead.end(group)
    return None


# A metric with no well-known name, right after "Measured by": an identifier (`churn_auc`, `pass@1`, a
# back-quoted name) or a short phrase ending in a measurement word ("churn score", "ranking quality score").
_LEAD_IDENTIFIER = re.compile(
    r"\s*(?:the\s+)?(?:`(?P<quoted>[A-Za-z_][\w.@\-]*)`|(?P<value>[A-Za-z_][\w.]*(?:[_@][\w.]+)+))"
)
_LEAD_PHRASE = re.compile(
    r"\s*(?:the\s+|a\s+|an\s+|its\s+|our\s+)?(?P<value>(?:[A-Za-z][\w\-]*\s+){0,3}"
    r"(?:score|rate|error|loss|accuracy|precision|recall|ratio|reward|correlation|distance|similarity|gain))\b",
    re.IGNORECASE,
)


def _parse_protocol(lines: Sequence[str], fenced: set[int]) -> Protocol | None:
    found = _protocol_lines(lines, fenced)
    if found is None:
        return None
    number, match, segments = found
    label_start = match.start("label")
    label_text = match.group("label").rstrip()
    label_range = Range.of(number, label_start, number, label_start + len(label_text))
    if not segments:
        end = label_range.end
        return Protocol(
            Range(label_range.start, end), label_range, "", None, None, None, None, None, None, None, end
        )
    body = _Text(segments)
    text = body.text

    printed = _find_print_format(text)
    print_field = body.field(printed[0], printed[1], printed[2]) if printed else None
    print_name_range = body.range(printed[3], printed[4]) if printed else None
    avoid: list[tuple[int, int]] = [(printed[1], printed[2])] if printed else []

    # A blank left by a fix (`<split: e.g. 80/20, ...>`) states nothing: read the text without it.
    blanks = [m for m in _FILL_IN.finditer(text) if not _overlaps(m.start(), m.end(), avoid)]
    placeholders = tuple(m.group(0) for m in blanks)
    written = text
    for m in blanks:
        text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]

    data = _find_data(text, avoid)
    data_field = body.field(data[0], data[1], data[2]) if data else None
    if data:
        avoid.append((data[1], data[2]))

    split = _find_split(text, avoid) or _find_fixed_split(text)
    split_field = body.field(text[split[0] : split[1]].strip(), split[0], split[1]) if split else None
    if split:
        avoid.append(split)

    seed_field: Field | None = None
    seed_match = _SEED.search(text) or _SEED_AFTER.search(text)
    if seed_match:
        seed_field = body.field(seed_match.group("n"), seed_match.start(), seed_match.end())
        avoid.append((seed_match.start(), seed_match.end()))

    direction_field: Field | None = None
    direction_kv = _DIRECTION_KV.search(text)
    direction_match = direction_kv or _DIRECTION.search(text)
    if direction_match is not None:
        if direction_kv is not None:
            maximize = direction_kv.group("value").lower().startswith("max")
        else:
            maximize = bool(direction_match.group("max"))
        direction_field = body.field(
            "maximize" if maximize else "minimize", direction_match.start(), direction_match.end()
        )
        avoid.append(direction_match.span())

    metric = _find_metric(text, avoid)
    metric_field = body.field(metric[0], metric[1], metric[2]) if metric else None

    last_line, last_col, last_chunk = segments[-1]
    trimmed = re.sub(r"(?:[.。]|\*\*|__)+\s*$", "", last_chunk).rstrip()
    append_at = Position(last_line, last_col + len(trimmed))
    whole = Range(label_range.start, Position(last_line, last_col + len(last_chunk)))
    return Protocol(
        whole,
        label_range,
        written,
        data_field,
        split_field,
        seed_field,
        metric_field,
        direction_field,
        print_field,
        print_name_range,
        append_at,
        placeholders,
    )


# --------------------------------------------------------------------------------------------------------------
# Public entry points


_T = TypeVar("_T")

# Characters that render as nothing (zero-width, bidi controls, soft hyphen): BR010 reports them, and the parser
# reads the text without them, so "se\u200bed 42" is still a seed and "80/\u200b20" still a split.
INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def parse_brief(text: str) -> Brief:
    """Parse a Markdown brief. Never raises: what is not there is None (the BR rules say so). Invisible
    characters are ignored; every position still refers to `text` as written."""
    if INVISIBLE.search(text) is None:
        return _parse_visible(text)
    columns = [
        [i for i, ch in enumerate(line) if not INVISIBLE.match(ch)] + [len(line)]
        for line in split_lines(text)
    ]
    return _remap(_parse_visible(INVISIBLE.sub("", text)), columns)


def _remap(value: _T, columns: list[list[int]]) -> _T:
    """`value` with every Position moved from the text without invisible characters back to the text."""
    if isinstance(value, Position):
        line = columns[value.line] if value.line < len(columns) else [value.character]
        return Position(value.line, line[min(value.character, len(line) - 1)])  # type: ignore[return-value]
    if isinstance(value, Range):
        return Range(_remap(value.start, columns), _remap(value.end, columns))  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(_remap(v, columns) for v in value)  # type: ignore[return-value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _remap(getattr(value, f.name), columns) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    return value


def _parse_visible(text: str) -> Brief:
    lines, fenced = visible_lines(text)
    sections = _sections(lines, fenced)
    protocol = _parse_protocol(lines, fenced)
    goal = _goal(lines, fenced, sections)
    if goal is not None and protocol is not None:
        goal = _goal_before(goal, protocol.range.start.line, lines)
    return Brief(goal, protocol, sections)


def _goal_before(goal: Goal, protocol_line: int, lines: Sequence[str]) -> Goal:
    """A `# Goal` section that also holds the Measured by line ends before it: the protocol is not the goal."""
    if not goal.range.start.line < protocol_line <= goal.range.end.line:
        return goal
    end = protocol_line - 1
    while end > goal.range.start.line and not lines[end].strip():
        end -= 1
    head = lines[goal.range.start.line]
    body = lines[goal.range.start.line + 1 : end + 1]
    heading = _HEADING.match(head)
    if heading:
        title = re.sub(r"^goals?\s*:?\s*", "", (heading.group(2) or "").strip(), flags=re.IGNORECASE)
    else:
        match = _GOAL_LINE.match(head)
        title = head[match.end() :].strip() if match else head.strip()
    text = " ".join(part for part in (title, "\n".join(body).strip()) if part)
    return Goal(text, Range.of(goal.range.start.line, 0, end, len(lines[end])))


def protocol_at(text: str, line: int) -> Protocol | None:
    """The protocol when zero-based `line` is on the `Measured by` line(s) (editor hover), else None."""
    protocol = parse_brief(text).protocol
    if protocol is None or not protocol.range.start.line <= line <= protocol.range.end.line:
        return None
    return protocol


def find_metric_names(text: str) -> list[str]:
    """Metric names mentioned in prose (e.g. a Goal), as written."""
    return [m.group(0) for m in _METRIC_WORDS.finditer(text)]


def metric_key(name: str) -> str:
    """A comparison key for a metric name: case, punctuation, aliases and where-it-was-computed words ignored.

    `ROC AUC`, `roc_auc`, `AUROC` and `test_auc` all give `auc`; `F1 score` and `f1` give `f1`; `macro F1` and
    `f1_macro` give `macro_f1`. Names with no known alias compare as their sorted word set.
    """
    lowered = name.strip().lower().replace("²", "2").replace("^2", "2")
    spaced = re.sub(r"[^a-z0-9@]+", " ", lowered).strip()
    if spaced in _METRIC_ALIASES:
        return _METRIC_ALIASES[spaced]
    tokens = [t for t in spaced.split() if t not in _METRIC_NOISE]
    joined = " ".join(tokens)
    if joined in _METRIC_ALIASES:
        return _METRIC_ALIASES[joined]
    if not tokens:
        return spaced.replace(" ", "_")
    return "_".join(sorted(tokens))


def same_metric(a: str, b: str) -> bool:
    return metric_key(a) == metric_key(b)


_PATH_TOKEN = re.compile(r"[^\s`'\"()\[\]{},;|]+")


def workspace_paths(text: str, roots: Sequence[str], extra: Sequence[Range] = ()) -> list[Field]:
    """Workspace-relative paths the brief names, outside code fences and HTML comments (for BR007).

    A path counts when its first segment is one of `roots` (the data and suite directories), when it is
    back-quoted in a `Data` section, or when `extra` ranges (the protocol's data) cover it. URLs, absolute
    paths, `..` paths, globs and `<placeholders>` are not workspace paths.
    """
    lines, fenced = visible_lines(text)
    root_set = {r.strip("/") for r in roots if r.strip("/")}
    data_lines: set[int] = set()
    for section in _sections(lines, fenced):
        if section.title.lower().startswith("data"):
            data_lines.update(range(section.range.start.line, section.range.end.line + 1))
    found: dict[tuple[int, int], Field] = {}
    for number, line in enumerate(lines):
        if number in fenced:
            continue
        for match in _PATH_TOKEN.finditer(line):
            token = match.group(0).rstrip(".:!?")
            start = match.start()
            if token.startswith("<") and token.endswith(">"):  # a Markdown autolink <path>
                token, start = token[1:-1], start + 1
            if "<" in token or ">" in token:  # a placeholder such as kapso_datasets/<file>
                continue
            quoted = start > 0 and line[start - 1] == "`"
            if not _is_workspace_path(token):
                continue
            first = token.split("/", 1)[0]
            named = first in root_set and "/" in token
            in_data = number in data_lines and quoted and _is_path_like(token, quoted=False)
            covered = _is_path_like(token, quoted) and any(
                r.start.line == number
                and r.start.character <= start
                and start + len(token) <= r.end.character
                for r in extra
            )
            if named or in_data or covered:
                found[(number, start)] = Field(token, Range.of(number, start, number, start + len(token)))
    return [found[key] for key in sorted(found)]


def _is_workspace_path(token: str) -> bool:
    if (
        not token
        or "://" in token
        or token.startswith(("/", "~", "..", "$"))
        or any(c in token for c in "*?")
    ):
        return False
    return not _PLACEHOLDER.match(token) and not re.fullmatch(r"[\d./%:-]+", token)
