"""The engine's file checks: one `stat` per path per lint, and an outside write still seen by the next lint."""

from __future__ import annotations

import collections
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

import lsp_server.engine
from lsp_server.documents import DocumentStore
from lsp_server.engine import Engine, Overlay
from tests.lsp_server.conftest import BRIEF, EVALUATOR, write_workspace


def _open(docs: DocumentStore, path: Path, text: str) -> Any:
    return docs.open(types.TextDocumentItem(uri=path.as_uri(), language_id="", version=1, text=text))


def test_a_lint_stats_each_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_workspace(tmp_path / "ws")
    docs = DocumentStore()
    engine = Engine(docs)
    doc = _open(docs, root / "kapso_evaluation" / "evaluate.py", EVALUATOR)
    engine.result(doc)
    stats: collections.Counter[str] = collections.Counter()
    real_stat = os.stat

    def counting_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if sys._getframe(1).f_code.co_filename == lsp_server.engine.__file__:
            stats[Path(path).relative_to(root).as_posix()] += 1
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting_stat)
    doc.version = 2  # an edit: the whole lint runs again
    engine.result(doc)
    assert stats["brief.md"] == 1  # read by the metric check: its freshness token and its read
    assert set(stats.values()) == {1}, stats
    assert {"proctor.toml", "pyproject.toml", ".git/HEAD"} <= set(stats)


def test_an_outside_write_is_seen_by_the_next_lint(tmp_path: Path) -> None:
    """The evaluator on disk (not open) is read by the brief's lint: BR008 follows each write to it."""
    root = write_workspace(tmp_path / "ws")
    docs = DocumentStore()
    engine = Engine(docs)
    doc = _open(docs, root / "brief.md", BRIEF)
    evaluator = root / "kapso_evaluation" / "evaluate.py"
    assert [d.code for d in engine.result(doc).diagnostics] == []
    evaluator.write_text(EVALUATOR.replace('print(f"auc: ', 'print(f"f1: '), encoding="utf-8")
    assert [d.code for d in engine.result(doc).diagnostics] == ["BR008"]
    evaluator.write_text(EVALUATOR, encoding="utf-8")
    assert [d.code for d in engine.result(doc).diagnostics] == []


def test_a_path_keeps_its_token_within_one_lint_only(tmp_path: Path) -> None:
    overlay = Overlay(DocumentStore())
    path = tmp_path / "file.txt"
    path.write_text("one", encoding="utf-8")
    with overlay.one_lint():
        first = overlay.disk_token(path)
        path.write_text("three", encoding="utf-8")
        assert overlay.disk_token(path) == first  # one answer per lint
        with overlay.one_lint():
            assert overlay.disk_token(path) == first  # a lint inside a lint shares it
    assert overlay.disk_token(path) != first
    assert overlay.disk_token(path)[2] == len("three")
