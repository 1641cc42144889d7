"""What the client declared it can do, read once from `initialize` and never changed after."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from lsp_server import convert

__all__ = ["ClientFeatures"]


@dataclass(frozen=True)
class ClientFeatures:
    """The client's capabilities that change what the server sends (the defaults: a minimal client)."""

    encoding: str = convert.UTF16
    related_information: bool = False
    code_description: bool = False
    pull: bool = False
    refresh: bool = False
    document_changes: bool = False
    delete_files: bool = False
    configuration: bool = False
    work_done_progress: bool = False
    watched_files_dynamic: bool = False

    @classmethod
    def from_capabilities(cls, caps: types.ClientCapabilities, encoding: str) -> ClientFeatures:
        """The features of a client with these capabilities and the negotiated position `encoding`."""
        text = caps.text_document
        publish = text.publish_diagnostics if text else None
        ws = caps.workspace
        edit = ws.workspace_edit if ws else None
        watched = ws.did_change_watched_files if ws else None
        return cls(
            encoding=encoding,
            related_information=bool(publish and publish.related_information),
            code_description=bool(publish and publish.code_description_support),
            pull=bool(text and text.diagnostic is not None),
            refresh=bool(ws and ws.diagnostics and ws.diagnostics.refresh_support),
            document_changes=bool(edit and edit.document_changes),
            delete_files=bool(
                edit
                and edit.resource_operations
                and types.ResourceOperationKind.Delete in edit.resource_operations
            ),
            configuration=bool(ws and ws.configuration),
            work_done_progress=bool(caps.window and caps.window.work_done_progress),
            watched_files_dynamic=bool(watched and watched.dynamic_registration),
        )
