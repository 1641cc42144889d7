"""The evaluator analysis the rules share, as it moves out of the rule package's top level (one module per
concern: AST utilities here first; the chunk model, the incremental cutter and scopes follow)."""

from __future__ import annotations

from core.rules.evaluator.analysis.ast_utils import children, parse

__all__ = ["children", "parse"]
