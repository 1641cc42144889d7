"""Pay the first lint's one-time costs right after `initialized`, not on the first document the user opens.

lsprotocol's converter builds its (un)structure functions for a type on first use: about 10 ms for a
publishDiagnostics with related information and a docs link, and again for a pull report. The rules compile
their patterns and fill their per-name tables on their first lint. None of this depends on the document, so a
small built-in evaluator, linted and serialized once (nothing is sent), makes the cold didOpen cost only its
own parse and rules.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from core.config import Config
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
_RELPATH = "kapso_evaluation/proctor-warm-up.py"  # its own cache key: never a user's document
_URI = "file:///proctor-warm-up.py"


def warm_up(unstructure: Callable[[Any], object], encoding: str) -> None:
    """Lint `SAMPLE` and serialize its diagnostics as a push and as a pull answer (see module docstring)."""
    try:
        found = lint_document(_RELPATH, SAMPLE, DocumentKind.EVALUATOR, LintContext(config=Config()))
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
