"""Renderers: turn core results (check diagnostics, verify verdicts, scoreboards) into text, JSON, SARIF, ..."""
