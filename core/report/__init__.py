"""Renderers: turn core results (check diagnostics, verify verdicts, the rule docs) into text, JSON, SARIF, ...

A campaign's scoreboard and report render in core/campaign/report/, beside the engine that writes them.
"""
