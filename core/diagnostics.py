"""The one diagnostic type every face renders: CLI text/JSON/SARIF, LSP diagnostics, PR annotations.

Positions are zero-based lines and zero-based *character* (code point) columns, end exclusive. Renderers for
people and JSON add 1; the language server converts characters to UTF-16 units in `lsp_server/convert.py`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

RULES_URL = "https://github.com/proctor-dev/proctor/blob/main/docs/rules.md#{anchor}"


class Applicability(enum.StrEnum):
    """Whether `proctor check --fix` may apply a fix (ruff's model): `unsafe` needs `--unsafe-fixes`."""

    SAFE = "safe"
    UNSAFE = "unsafe"


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class FindingSeverity(enum.StrEnum):
    """What an integrity finding (IN codes) does to a candidate, as the rule table shows it: the words of
    `core.integrity.findings.Severity`, which the guard's findings carry."""

    REJECT = "reject"
    FLAG = "flag"


@dataclass(frozen=True, order=True)
class Position:
    line: int
    character: int


@dataclass(frozen=True, order=True)
class Range:
    start: Position
    end: Position

    @classmethod
    def of(cls, line: int, character: int, end_line: int, end_character: int) -> Range:
        return cls(Position(line, character), Position(end_line, end_character))

    @classmethod
    def line_start(cls, line: int) -> Range:
        return cls(Position(line, 0), Position(line, 0))


@dataclass(frozen=True)
class TextEdit:
    """Replace `range` of the file at `path` with `new_text` (an insertion when the range is empty)."""

    path: str
    range: Range
    new_text: str


@dataclass(frozen=True)
class Fix:
    """A rule's autofix: text edits, and files to delete (EV017 deletes a stale result.json)."""

    title: str
    edits: tuple[TextEdit, ...]
    delete_paths: tuple[str, ...] = ()
    applicability: Applicability = Applicability.SAFE


@dataclass(frozen=True)
class Related:
    """Another place the reader should look (e.g. BR008 points at the evaluator's metric print)."""

    path: str
    range: Range
    message: str


@dataclass(frozen=True)
class Diagnostic:
    code: str
    name: str
    severity: Severity
    path: str
    range: Range
    message: str
    fix: Fix | None = None
    related: tuple[Related, ...] = field(default=())

    @property
    def url(self) -> str:
        return rule_url(self.code)

    def to_json(self) -> dict[str, object]:
        """The stable `check --format json` shape (SPEC §6): 1-based lines and columns."""
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.range.start.line + 1,
            "column": self.range.start.character + 1,
            "end_line": self.range.end.line + 1,
            "end_column": self.range.end.character + 1,
            "message": self.message,
            "url": self.url,
            "fix": None
            if self.fix is None
            else {
                "title": self.fix.title,
                "edits": [
                    {
                        "path": e.path,
                        "line": e.range.start.line + 1,
                        "column": e.range.start.character + 1,
                        "end_line": e.range.end.line + 1,
                        "end_column": e.range.end.character + 1,
                        "new_text": e.new_text,
                    }
                    for e in self.fix.edits
                ],
                "delete_paths": list(self.fix.delete_paths),
                "applicability": self.fix.applicability.value,
            },
            "related": [
                {
                    "path": r.path,
                    "line": r.range.start.line + 1,
                    "column": r.range.start.character + 1,
                    "message": r.message,
                }
                for r in self.related
            ],
        }


def rule_url(code: str) -> str:
    return RULES_URL.format(anchor=code.lower())


def byte_col_to_char(line_text: str, byte_col: int) -> int:
    """`ast` reports UTF-8 byte offsets within a line; diagnostics use code points."""
    return len(line_text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))
