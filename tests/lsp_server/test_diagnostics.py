"""Diagnostics end to end over stdio: codes, source, docs links, related information, versions, pull vs
push, cross-file refresh, close, settings and config re-reads, for the VS Code, Neovim and Emacs profiles."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp_server.conftest import (
    PRINT_LINE,
    PROFILES,
    change_doc,
    codes,
    diagnostics,
    edit,
    is_pull,
    no_error_messages,
    open_doc,
    pushed,
    replace_all,
    start,
)

pytestmark = pytest.mark.asyncio

BAD_BRIEF = """# Goal
Predict churn.

Measured by AUC on kapso_datasets/churn.csv.
"""


@pytest.mark.parametrize("profile", PROFILES)
async def test_config_errors_carry_code_source_and_docs_link(
    client: LanguageClient, workspace: Path, profile: str
) -> None:
    (workspace / "proctor.toml").write_text(
        'timeout = "600"\n\n[campaign]\nparallel = "two"\n', encoding="utf-8"
    )
    await start(client, workspace, profile)
    uri = open_doc(client, workspace / "proctor.toml")
    items = await diagnostics(client, uri, version=1)
    assert codes(items) == ["CF001", "CF001"]
    first = min(items, key=lambda d: d.range.start.line)
    assert first.source == "proctor"
    assert first.severity == types.DiagnosticSeverity.Error
    assert first.range == types.Range(types.Position(0, 0), types.Position(0, 15))
    assert "unknown key" in first.message
    publish = client.capabilities.text_document.publish_diagnostics  # type: ignore[union-attr]
    if publish is not None and publish.code_description_support:
        assert first.code_description is not None
        assert first.code_description.href.endswith("#cf001")
    else:
        assert first.code_description is None
    no_error_messages(client)


@pytest.mark.parametrize("profile", PROFILES)
async def test_brief_findings_and_related_information(
    client: LanguageClient, workspace: Path, profile: str
) -> None:
    (workspace / "brief.md").write_text(BAD_BRIEF, encoding="utf-8")
    await start(client, workspace, profile)
    uri = open_doc(client, workspace / "brief.md")
    items = await diagnostics(client, uri, version=1)
    assert {"BR003", "BR004", "BR006", "BR009"} <= set(codes(items))

    # BR008 points at the evaluator's print when the client can show related information.
    (workspace / "brief.md").write_text(
        "# Goal\nauc above 0.9\n\nMeasured by accuracy (higher is better) on kapso_datasets/churn.csv, "
        "an 80/20 split with seed 42, printed as `accuracy: <value>`.\n",
        encoding="utf-8",
    )
    uri2 = open_doc(client, workspace / "brief.md", version=2)
    assert uri2 == uri
    items = await diagnostics(client, uri, version=2, until=lambda ds: "BR008" in codes(ds))
    mismatch = next(d for d in items if d.code == "BR008")
    publish = client.capabilities.text_document.publish_diagnostics  # type: ignore[union-attr]
    if publish is not None and publish.related_information:
        assert mismatch.related_information is not None
        location = mismatch.related_information[0].location
        assert location.uri == (workspace / "kapso_evaluation" / "evaluate.py").as_uri()
        assert location.range.start.line == PRINT_LINE
    else:
        assert mismatch.related_information is None
    no_error_messages(client)


@pytest.mark.parametrize("profile", ["visual_studio_code", "vscode_pull"])
async def test_editing_the_evaluator_metric_updates_the_brief(
    client: LanguageClient, workspace: Path, profile: str
) -> None:
    await start(client, workspace, profile)
    brief = open_doc(client, workspace / "brief.md")
    assert "BR008" not in codes(await diagnostics(client, brief, version=1))
    evaluator = open_doc(client, workspace / "kapso_evaluation" / "evaluate.py")
    await diagnostics(client, evaluator, version=1)

    line = PRINT_LINE
    text = (workspace / "kapso_evaluation" / "evaluate.py").read_text().splitlines()[line]
    col = text.index("auc:")
    change_doc(client, evaluator, 2, edit(line, col, line, col + 3, "accuracy"))
    items = await diagnostics(client, brief, until=lambda ds: "BR008" in codes(ds))
    assert "BR008" in codes(items)
    if is_pull(client):
        assert client.diagnostic_refresh_count >= 1

    # ... and back: renaming the brief's metric to match clears it (vice versa through the brief).
    brief_text = (workspace / "brief.md").read_text()
    change_doc(
        client, brief, 2, replace_all(brief_text.replace("auc", "accuracy").replace("AUC", "accuracy"))
    )
    items = await diagnostics(client, brief, version=2, until=lambda ds: "BR008" not in codes(ds))
    assert "BR008" not in codes(items)
    no_error_messages(client)


async def test_push_results_carry_versions_and_are_cleared_on_close(
    client: LanguageClient, workspace: Path
) -> None:
    (workspace / "brief.md").write_text(BAD_BRIEF, encoding="utf-8")
    await start(client, workspace, "neovim@v0.9")
    uri = open_doc(client, workspace / "brief.md", version=7)
    assert await pushed(client, uri, version=7)
    change_doc(client, uri, 8, edit(3, 0, 3, 0, "Intro.\n\n"))
    assert await pushed(client, uri, version=8)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    assert await pushed(client, uri, until=lambda ds: ds == []) == []


async def test_pull_client_gets_no_pushes_and_unchanged_reports(
    client: LanguageClient, workspace: Path
) -> None:
    (workspace / "brief.md").write_text(BAD_BRIEF, encoding="utf-8")
    await start(client, workspace, "neovim@v0.11")
    uri = open_doc(client, workspace / "brief.md")
    first = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(first, types.RelatedFullDocumentDiagnosticReport)
    assert first.items and first.result_id
    again = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=first.result_id
        )
    )
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    assert client.recorder.published == {}  # type: ignore[attr-defined]


async def test_settings_select_ignore_and_bad_options(client: LanguageClient, workspace: Path) -> None:
    (workspace / "brief.md").write_text(BAD_BRIEF, encoding="utf-8")
    await start(
        client,
        workspace,
        "neovim@v0.7",
        init_options={"proctor": {"ignore": "BR003, BR006", "debounceMs": "soon"}},
    )
    uri = open_doc(client, workspace / "brief.md")
    items = await pushed(client, uri, version=1)
    assert "BR004" in codes(items)
    assert not {"BR003", "BR006"} & set(codes(items))
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert any("debounceMs" in m for m in warnings), warnings
    no_error_messages(client)

    # Neovim 0.7 has no workspace/configuration: settings come with the notification.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"proctor": {"select": ["BR004"], "ignore": []}})
    )
    items = await pushed(client, uri, until=lambda ds: codes(ds) == ["BR004"])
    assert codes(items) == ["BR004"]


async def test_workspace_configuration_is_asked_when_supported(
    client: LanguageClient, workspace: Path
) -> None:
    (workspace / "brief.md").write_text(BAD_BRIEF, encoding="utf-8")
    client.set_configuration({"select": ["BR003"]}, section="proctor")
    await start(client, workspace, "visual_studio_code")
    uri = open_doc(client, workspace / "brief.md")
    items = await pushed(client, uri, until=lambda ds: codes(ds) == ["BR003"])
    assert codes(items) == ["BR003"]
    client.set_configuration({"select": ["BR004"]}, section="proctor")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert codes(await pushed(client, uri, until=lambda ds: codes(ds) == ["BR004"])) == ["BR004"]


async def test_config_buffer_changes_are_read_again(client: LanguageClient, workspace: Path) -> None:
    """Renaming the brief in proctor.toml (unsaved) moves the brief rules to the other file."""
    (workspace / "other.md").write_text(BAD_BRIEF, encoding="utf-8")
    (workspace / "proctor.toml").write_text('brief = "brief.md"\n', encoding="utf-8")
    await start(client, workspace, "emacs")
    other = open_doc(client, workspace / "other.md")
    assert await pushed(client, other, version=1) == []
    config = open_doc(client, workspace / "proctor.toml")
    await pushed(client, config, version=1)
    change_doc(client, config, 2, replace_all('brief = "other.md"\n'))
    items = await pushed(client, other, until=lambda ds: len(ds) > 0)
    assert "BR003" in codes(items)

    # A broken config keeps the last valid one while CF001 says what is wrong.
    change_doc(client, config, 3, replace_all('brief = "other.md\n'))
    assert codes(await pushed(client, config, version=3)) == ["CF001"]
    assert "BR003" in codes(await pushed(client, other, until=lambda ds: len(ds) > 0))
    no_error_messages(client)


async def test_watched_config_file_change_on_disk(client: LanguageClient, workspace: Path) -> None:
    (workspace / "other.md").write_text(BAD_BRIEF, encoding="utf-8")
    await start(client, workspace, "visual_studio_code")
    other = open_doc(client, workspace / "other.md")
    assert await pushed(client, other, version=1) == []
    (workspace / "proctor.toml").write_text('brief = "other.md"\n', encoding="utf-8")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=(workspace / "proctor.toml").as_uri(), type=types.FileChangeType.Created)
            ]
        )
    )
    assert "BR003" in codes(await pushed(client, other, until=lambda ds: len(ds) > 0))
