"""The CLI's one error path: usage errors and ProctorError are one line and exit 2, no traceback."""

from __future__ import annotations

import subprocess
import sys

from core.cli import main


def test_no_arguments_prints_help_and_exits_2(capsys: object) -> None:
    assert main([]) == 2


def test_unknown_command_is_a_usage_error() -> None:
    assert main(["no-such-command"]) == 2


def test_console_script_error_is_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "core", "no-such-command"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "No such command" in proc.stderr
