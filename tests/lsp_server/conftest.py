"""pytest-lsp end-to-end setup: a real `python -m lsp_server` process per test, driven by a client that
declares the capabilities of VS Code, Neovim or Emacs (pytest-lsp ships their capability files), on a fresh
copy of a small example workspace (esbonio `tests/server/conftest.py` pattern)."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES

SERVER = [sys.executable, "-m", "lsp_server"]
PROFILES = ["visual_studio_code", "neovim", "emacs"]

EVALUATOR = '''"""Scores a churn model: prints `auc: <value>` last and writes result.json."""
import argparse
import json
import subprocess
import sys

SEED = 42


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    done = subprocess.run([sys.executable, "-m", "candidate.predict"], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"candidate failed: {done.stderr[-200:]}", file=sys.stderr)
        sys.exit(1)
    rows = 100 if args.fast else 1000
    auc = 0.5 + rows / 1e5
    with open("kapso_evaluation/result.json", "w") as handle:
        json.dump({"evaluation_script_path": __file__, "evaluation_output": done.stdout, "score": auc}, handle)
    print(f"auc: {auc:.4f}")


if __name__ == "__main__":
    main()
'''
PRINT_LINE = EVALUATOR.splitlines().index('    print(f"auc: {auc:.4f}")')

BRIEF = """# Goal
Predict churn: auc above 0.85.

Measured by AUC (higher is better) on kapso_datasets/churn.csv, an 80/20 split with seed 42,
printed as `auc: <value>`.
"""


def write_workspace(root: Path, *, git: bool = True) -> Path:
    """A small contract-following workspace (the shape `proctor demo` builds)."""
    (root / "kapso_evaluation").mkdir(parents=True, exist_ok=True)
    (root / "kapso_datasets").mkdir(exist_ok=True)
    (root / "candidate").mkdir(exist_ok=True)
    (root / "kapso_evaluation" / "evaluate.py").write_text(EVALUATOR, encoding="utf-8")
    (root / "kapso_datasets" / "churn.csv").write_text("x,y\n1,0\n2,1\n", encoding="utf-8")
    (root / "candidate" / "__init__.py").write_text("", encoding="utf-8")
    (root / "candidate" / "predict.py").write_text("print('0.7')\n", encoding="utf-8")
    (root / "brief.md").write_text(BRIEF, encoding="utf-8")
    if git:
        (root / ".git").mkdir(exist_ok=True)  # marks the workspace root; no git history is needed
    return root


@dataclass
class Published:
    uri: str
    version: int | None
    diagnostics: list[types.Diagnostic]


@dataclass
class Recorder:
    """What the server sent that pytest-lsp does not keep: every publish with its version."""

    published: dict[str, list[Published]] = field(default_factory=dict)
    registrations: list[types.Registration] = field(default_factory=list)


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=_converter)
    client.recorder = Recorder()  # type: ignore[attr-defined]
    for method, func in DEFAULT_CLIENT_FEATURES.items():
        if method != types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            client.feature(method)(func)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(ls: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        ls.diagnostics[params.uri] = params.diagnostics
        ls.recorder.published.setdefault(params.uri, []).append(  # type: ignore[attr-defined]
            Published(params.uri, params.version, list(params.diagnostics))
        )

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(ls: LanguageClient, params: types.RegistrationParams) -> None:
        ls.recorder.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    return client


def _converter() -> Any:
    from pygls.protocol import default_converter

    return default_converter()


CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client)


def capabilities(profile: str) -> types.ClientCapabilities:
    """A pytest-lsp client profile; `vscode_pull` is today's VS Code: pull diagnostics with refresh."""
    if profile == "vscode_pull":
        caps = client_capabilities("visual_studio_code")
        assert caps.text_document is not None and caps.workspace is not None
        caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=False)
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        return caps
    return client_capabilities(profile)


async def start(
    client: LanguageClient, root: Path, profile: str, init_options: Any = None
) -> types.InitializeResult:
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(profile),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options=init_options,
        )
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_workspace(tmp_path / "ws")


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient) -> Any:
    """A client that is not initialized yet: each test picks a profile and options."""
    yield
    await lsp_client.shutdown_session()


def is_pull(client: LanguageClient) -> bool:
    caps = client.capabilities
    return bool(caps and caps.text_document and caps.text_document.diagnostic is not None)


def open_doc(client: LanguageClient, path: Path, version: int = 1, text: str | None = None) -> str:
    uri = path.as_uri()
    language = {".py": "python", ".md": "markdown", ".toml": "toml", ".json": "json"}.get(
        path.suffix, "plaintext"
    )
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=uri,
                language_id=language,
                version=version,
                text=path.read_text(encoding="utf-8") if text is None else text,
            )
        )
    )
    return uri


def change_doc(
    client: LanguageClient, uri: str, version: int, *changes: types.TextDocumentContentChangeEvent
) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=list(changes),
        )
    )


def replace_all(text: str) -> types.TextDocumentContentChangeWholeDocument:
    return types.TextDocumentContentChangeWholeDocument(text=text)


def edit(line: int, start: int, end_line: int, end: int, text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(line, start), types.Position(end_line, end)), text=text
    )


async def pushed(
    client: LanguageClient,
    uri: str,
    *,
    version: int | None = None,
    until: Any = None,
    timeout: float = 15.0,
) -> list[types.Diagnostic]:
    """Wait for a publishDiagnostics for `uri` (with `version`, and satisfying `until` when given)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    while True:
        for item in reversed(recorder.published.get(uri, [])):
            if (version is None or item.version == version) and (until is None or until(item.diagnostics)):
                return item.diagnostics
            break
        remaining = deadline - loop.time()
        if remaining <= 0:
            got = recorder.published.get(uri, [])
            raise AssertionError(f"no matching diagnostics for {uri} (version {version}); last: {got[-1:]}")
        try:
            await asyncio.wait_for(
                client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), remaining
            )
        except TimeoutError:
            continue


async def pulled(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport), report
    return list(report.items)


async def diagnostics(
    client: LanguageClient, uri: str, *, version: int | None = None, until: Any = None
) -> list[types.Diagnostic]:
    """The document's diagnostics the way this client gets them (pull request, or waiting for a push)."""
    if not is_pull(client):
        return await pushed(client, uri, version=version, until=until)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while True:
        items = await pulled(client, uri)
        if until is None or until(items) or loop.time() > deadline:
            return items
        await asyncio.sleep(0.02)


def codes(items: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in items)


def no_error_messages(client: LanguageClient) -> None:
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert errors == [], errors
