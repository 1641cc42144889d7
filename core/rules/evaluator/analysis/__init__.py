"""The evaluator analysis the rules share, one module per concern.

`ast_utils` (children, walks, parse), `chunks` (one parsed piece and its index), `cutter` (cutting a
document into chunks, the incremental re-parse and the caches), `scopes` (bindings per scope, built from a
chunk's statements without importing `chunks`), `document` (whole-document tables read through the chunks),
`recorded` (typed lookups and tables whose lookups are recorded), `chunk_results` (what per-chunk rules found,
and the last lint of each document), `flow` (the execution-order walk, over a `FlowSource` protocol),
`exit_status` (what a local function's returned status decides in an `if`, for the walk).
The components an evaluator context is composed of: `source_text` (lines, positions, parent links, edits),
`tables` (whole-file facts merged from the chunks, and a context's nodes), `lookup_store` (the answers to
whole-file lookups, and a view's recording of them), `names` (aliases, builtins, bindings by scope).
`core.rules.evaluator.context` assembles them into the API the rules call.
"""

from __future__ import annotations

from core.rules.evaluator.analysis.ast_utils import children, parse

__all__ = ["children", "parse"]
