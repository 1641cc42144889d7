"""Every exception class Proctor defines, in one tree (httpx's `_exceptions.py` is the model).

ProctorError                              anything the CLI turns into one line and exit 2
├── ConfigError(path, line, key, problem) proctor.toml / [tool.proctor] is invalid (CF001)
├── WorkspaceError                        missing workspace, unreadable or binary file
├── GitError(message, argv, returncode, stderr)
│                                         a git command failed or a ref does not exist
├── RunnerError                           the evaluator could not be started at all
├── InterpreterError                      the configured or found Python cannot be used
├── IntegrityError(message, code)         a launch or a guard is refused (e.g. IN006 stale result.json)
├── RegistryError                         the evaluation registry is malformed or a version boundary was crossed
├── CampaignError                         a campaign cannot start or resume
│   └── IterationEvaluationError          the external evaluator failed under policy `raise` (also a RuntimeError)
│       └── IterationEvaluationValidationError   it returned malformed metrics, directions or metadata
├── JudgeError                            the judge cannot run (bad endpoint, unknown price, ...)
├── JobQueueError                         a queue URL names no queue, or the queue cannot be reached
├── StateDirError                         the state directory (.proctor/ or PROCTOR_STATE_DIR) cannot be written
├── IncompleteProtocol(brief, missing)    `proctor init`: the brief's protocol misses fields the evaluator needs
├── SettingsError(variable, problem)      the GitHub App: one environment variable is missing or invalid
└── WebhookRejected(status, reason)       the GitHub App: a delivery refused with that HTTP status

Outside the tree, because no user ever sees them (each is caught next to where it is raised):

UsageError(Exception)                     a bad `proctor check` argument, printed by the check command itself
AnswerError(ValueError)                   a judge answer that is not a verdict; the reason goes back to the model
TransientFailure(Exception)               the judge endpoint kept failing after retries; the call may succeed later
ForeignNodeError(RuntimeError)            an AST node from another document was handed to a rule context (a bug)
Locked(path, api)                         the GitHub App dashboard asked for without its token (answered 401)

Private control-flow signals (`_Terminated` in the evaluator flow analysis, `_Stop` in the process reaper,
`_Invalid` in the LSP settings reader) stay in their modules. An error that crosses an edge carries what its
catcher needs as attributes; its `str()` is the one line a user reads.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    """A git command failed: `argv` as run, its `returncode` and `stderr` (empty when git never ran or the
    problem is a ref that does not exist); `str()` is the one-line explanation."""

    def __init__(
        self, message: str, *, argv: Sequence[str] = (), returncode: int | None = None, stderr: str = ""
    ) -> None:
        super().__init__(message)
        self.argv = tuple(argv)
        self.returncode = returncode
        self.stderr = stderr


class RunnerError(ProctorError):
    pass


class InterpreterError(ProctorError):
    """The configured or found interpreter cannot be used."""


class IntegrityError(ProctorError):
    """A refusal; `code` names the integrity rule behind it when there is one (e.g. IN006)."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class RegistryError(ProctorError):
    pass


class CampaignError(ProctorError):
    pass


class IterationEvaluationError(CampaignError, RuntimeError):
    """The external evaluator failed under policy `raise`: the candidate was not recorded."""


class IterationEvaluationValidationError(IterationEvaluationError):
    """The external evaluator returned malformed metrics, directions or metadata."""


class JudgeError(ProctorError):
    pass


class JobQueueError(ProctorError):
    """A queue URL that names no queue, or a queue that cannot be reached."""


class StateDirError(ProctorError):
    """The state directory cannot be written."""


class IncompleteProtocol(ProctorError):
    """The brief does not state what the evaluator needs; `missing` names the fields (BR00x)."""

    def __init__(self, brief: str, missing: list[str]) -> None:
        super().__init__(f"{brief}: the Measured by protocol does not state: {', '.join(missing)}")
        self.brief = brief
        self.missing = missing


class SettingsError(ProctorError):
    """One environment variable is missing or invalid."""

    def __init__(self, variable: str, problem: str) -> None:
        super().__init__(f"{variable}: {problem}")
        self.variable = variable
        self.problem = problem


class WebhookRejected(ProctorError):
    """A delivery the endpoint refuses; `status` is the HTTP status to answer."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class UsageError(Exception):
    """A bad argument: one line on stderr, exit 2."""


class AnswerError(ValueError):
    """The answer is not a usable verdict; the message says why (it is shown to the model on the retry)."""


class TransientFailure(Exception):
    """The endpoint kept failing (429, 5xx, timeouts) after the SDK's retries; the call may succeed later."""


class ForeignNodeError(RuntimeError):
    """A per-chunk rule asked for the position of a node in another chunk (a bug in the rule split)."""


class Locked(Exception):
    """A dashboard route was asked for without the token; `api` picks a JSON or an HTML answer."""

    def __init__(self, path: str, api: bool) -> None:
        super().__init__(path)
        self.path, self.api = path, api
