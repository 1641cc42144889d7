"""Errors Proctor raises on purpose.

ProctorError                 anything the CLI turns into one line and exit 2
├── ConfigError              proctor.toml / [tool.proctor] is invalid (CF001)
├── WorkspaceError           missing workspace, unreadable or binary file
├── GitError                 a git command failed or a ref does not exist
├── RunnerError              the evaluator could not be started at all
├── IntegrityError           a launch is refused (e.g. IN006 stale result.json)
├── RegistryError            the evaluation registry is malformed or a version boundary was crossed
├── CampaignError            a campaign cannot start or resume
└── JudgeError               the judge cannot run (bad endpoint, unknown price, ...)
"""

from __future__ import annotations

from pathlib import Path


class ProctorError(Exception):
    """Root of Proctor's deliberate errors: the message is one line saying what, where and what to do."""


class ConfigError(ProctorError):
    def __init__(self, path: Path | str, line: int, key: str, problem: str) -> None:
        where = f"{path}:{line}" if line else f"{path}"
        super().__init__(f"{where}: `{key}`: {problem}" if key else f"{where}: {problem}")
        self.path = Path(path)
        self.line = line
        self.key = key
        self.problem = problem


class WorkspaceError(ProctorError):
    pass


class GitError(ProctorError):
    pass


class RunnerError(ProctorError):
    pass


class IntegrityError(ProctorError):
    pass


class RegistryError(ProctorError):
    pass


class CampaignError(ProctorError):
    pass


class JudgeError(ProctorError):
    pass
