"""Proctor's language server (SPEC §8): `python -m lsp_server` or `proctor-lsp`.

Thin pygls handlers over `core`: diagnostics from the same rule engine as `proctor check`, quick fixes, hover,
live integrity warnings and the `proctor.verify` / `proctor.fingerprint` commands.
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Start the server (see `lsp_server.__main__`)."""
    from lsp_server.__main__ import main as _main

    return _main(argv)
