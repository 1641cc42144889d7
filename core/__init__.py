"""Proctor's shared core: everything the CLI, the language server and the GitHub App decide lives here.

`core` never imports `lsp_server` or `github_app`.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
