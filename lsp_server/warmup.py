"""Pay the first lint's one-time costs right after `initialized`, not on the first document the user opens.

lsprotocol's converter builds its (un)structure functions for a type on first use: about 10 ms for a
publishDiagnostics with related information and a docs link, and again for a pull report; reading a client
message costs 1.5-3.5 ms the first time per method (didOpen, then the first edit's didChange, the first pull).
The rules compile their patterns and fill their per-name tables on their first lint, and the brief's reader
its patterns on the first brief (about 11 ms, paid by the first lint of an evaluator in a workspace with a
brief). None of this depends on the document, so a small built-in evaluator and brief, linted and serialized
once, and sample client messages read once (nothing is sent), make the cold didOpen cost only its own parse
and rules.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from core.config_view import DEFAULTS
from core.lint import lint_document
from core.rules.base import DocumentKind, LintContext
from lsp_server import convert
from lsp_server.documents import split_lines

__all__ = ["SAMPLE", "warm_up"]

log = logging.getLogger(__name__)

# Touches the rule families once: an unseeded call, a directory loop, a swallowing handler, a
# metric print and a result.json writer.
SAMPLE = '''"""Warm-up evaluator (never shown)."""
import json
import os
import random
import sys


def score(rows: list[float]) -> float:
    total = 0.0
    for name in os.listdir("."):
        total += len(name)
    try:
        return total / len(rows) + random.random()
    except Exception:
        return 0.0


def main() -> None:
    auc = score([1.0, 2.0])
    with open("kapso_evaluation/result.json", "w") as handle:
        json.dump({"score": auc}, handle)
    print(f"auc: {auc:.4f}")
    sys.exit(0)


if __name__ == "__main__":
    main()
'''
SAMPLE_BRIEF = """# Goal
Raise the AUC of the churn model above 0.85.

## Metric
Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 split with seed 42, printed as
`auc: <value>`.
"""
_RELPATH = "kapso_evaluation/proctor-warm-up.py"  # its own cache key: never a user's document
_BRIEF = "proctor-warm-up.brief.md"
_URI = "file:///proctor-warm-up.py"
_RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}
_IDENTIFIER = {"uri": _URI}
# What a client sends while a person types, one of each (pygls builds a reader per message type on first use).
MESSAGES: tuple[dict[str, Any], ...] = (
    {
        "method": "textDocument/didOpen",
        "params": {"textDocument": {**_IDENTIFIER, "languageId": "python", "version": 1, "text": "x = 1\n"}},
    },
    {
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {**_IDENTIFIER, "version": 2},
            "contentChanges": [{"range": _RANGE, "text": "y"}, {"text": "x = 2\n"}],
        },
    },
    {"method": "textDocument/didSave", "params": {"textDocument": _IDENTIFIER}},
    {"id": 0, "method": "textDocument/diagnostic", "params": {"textDocument": _IDENTIFIER}},
    {
        "id": 0,
        "method": "textDocument/codeAction",
        "params": {"textDocument": _IDENTIFIER, "range": _RANGE, "context": {"diagnostics": []}},
    },
    {"method": "textDocument/didClose", "params": {"textDocument": _IDENTIFIER}},
)


def warm_up(
    unstructure: Callable[[Any], object],
    encoding: str,
    structure: Callable[[dict[str, Any]], object] | None = None,
) -> None:
    """Lint `SAMPLE` (with `SAMPLE_BRIEF` as its brief) and the brief, serialize the evaluator's diagnostics as a
    push and as a pull answer, and read each of `MESSAGES` with `structure` (see module docstring)."""
    try:
        config = dataclasses.replace(DEFAULTS, brief=_BRIEF)
        read = {_BRIEF: SAMPLE_BRIEF}.get
        context = LintContext(config=config, read_file=read)
        found = lint_document(_RELPATH, SAMPLE, DocumentKind.EVALUATOR, context)
        lint_document(_BRIEF, SAMPLE_BRIEF, DocumentKind.BRIEF, context)
        if structure is not None:
            for message in MESSAGES:
                structure({"jsonrpc": "2.0", **message})
        lines = split_lines(SAMPLE)
        converter = convert.DiagnosticConverter(
            encoding,
            lambda rel: f"file:///{rel}",
            lambda _rel: lines,
            related_support=True,
            code_description_support=True,
        )
        items = converter.all_to_lsp(found, lines)
        related = types.DiagnosticRelatedInformation(
            types.Location(_URI, types.Range(types.Position(0, 0), types.Position(0, 1))), "warm-up"
        )
        items.append(
            types.Diagnostic(
                types.Range(types.Position(0, 0), types.Position(0, 1)),
                "warm-up",
                severity=types.DiagnosticSeverity.Warning,
                code="EV000",
                code_description=types.CodeDescription(href="https://example.invalid/"),
                source=convert.SOURCE,
                related_information=[related],
            )
        )
        unstructure(types.PublishDiagnosticsParams(uri=_URI, diagnostics=items, version=1))
        unstructure(types.RelatedFullDocumentDiagnosticReport(items=items, result_id="warm-up"))
    except Exception:
        log.exception("warming up failed (the first lint pays for it instead)")
