"""Every exception class Proctor defines, in one tree (httpx's `_exceptions.py` is the model).

ProctorError                              anything the CLI turns into one line and exit 2
├── ConfigError(path, line, key, problem) proctor.toml / [tool.proctor] is invalid (CF001)
├── WorkspaceError(message, path)         missing workspace, unreadable or binary file
├── GitError(message, argv, returncode, stderr)
│                                         a git command failed or a ref does not exist
├── RunnerError(message, argv, cwd)       the evaluator could not be started at all
├── InterpreterError(message, program)    the configured or found Python cannot be used
├── IntegrityError(message, code)         a launch or a guard is refused (e.g. IN006 stale result.json)
├── RegistryError(message, path)          the evaluation registry is malformed or a version boundary was crossed
├── CampaignError(message, path)          a campaign cannot start or resume
│   └── IterationEvaluationError          the external evaluator failed under policy `raise` (also a RuntimeError)
│       └── IterationEvaluationValidationError   it returned malformed metrics, directions or metadata
├── JudgeError(message, url, status, model, path, line)
│                                         the judge cannot run (bad endpoint, unknown price, unreadable items)
├── JobQueueError(message, url)           a queue URL names no queue, or the queue cannot be reached
├── StateDirError(message, path)          the state directory (.proctor/ or PROCTOR_STATE_DIR) cannot be written
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
`_Invalid` in the LSP settings reader, `_NotThatShape` in the LSP didChange reader) stay in their modules. An error that crosses an edge carries what its
catcher needs as keyword attributes (None or empty where a raise site has nothing to say, e.g. a config value
that is out of range); its `str()` is the one line a user reads. URLs and command lines are stored with their
secrets redacted (`redact_url`, `redact_argv`): an error may be logged, shown in a check run or kept in a
checkpoint, and a password in a queue URL or a token on a command line must not travel with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from core.secrets import looks_secret

REDACTED = "***"
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.I)


def _secret_name(name: str) -> bool:
    """A query parameter or `--flag` whose name says it holds a credential (`--api-key`, `?access_token=`)."""
    return looks_secret(name.lstrip("-").replace("-", "_"))


def redact_url(url: str) -> str:
    """`url` without its user-info or secret-named query values (redis://:pw@host → redis://***@host)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, tail = rest.partition("/")
    if "@" in authority:
        rest = f"{REDACTED}@{authority.rsplit('@', 1)[1]}{slash}{tail}"
    parts = urlsplit(f"{scheme}{sep}{rest}")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if not any(_secret_name(key) for key, _ in pairs):
        return f"{scheme}{sep}{rest}"
    query = urlencode([(key, REDACTED if _secret_name(key) else value) for key, value in pairs], safe="*")
    return urlunsplit(parts._replace(query=query))


def redact_argv(argv: Sequence[str]) -> tuple[str, ...]:
    """`argv` with URLs redacted and the value of every secret-named `--flag=value` (and `--flag value`) hidden."""
    shown: list[str] = []
    hide_next = False
    for arg in argv:
        name, eq, _ = arg.partition("=")
        if hide_next:
            shown.append(REDACTED)
        elif eq and name.startswith("-") and _secret_name(name):
            shown.append(f"{name}={REDACTED}")
        else:
            shown.append(_URL.sub(lambda found: redact_url(found.group(0)), arg))
        hide_next = not eq and arg.startswith("-") and _secret_name(arg)
    return tuple(shown)


def _optional_path(path: Path | str | None) -> Path | None:
    return None if path is None else Path(path)


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
    """A workspace file or directory is missing, unreadable or not what Proctor expected; `path` is it."""

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.path = _optional_path(path)


class GitError(ProctorError):
    """A git command failed: `argv` as run (a URL's credentials redacted), its `returncode` and `stderr` (empty
    when git never ran or the problem is a ref that does not exist); `str()` is the one-line explanation."""

    def __init__(
        self, message: str, *, argv: Sequence[str] = (), returncode: int | None = None, stderr: str = ""
    ) -> None:
        super().__init__(message)
        self.argv = redact_argv(argv)
        self.returncode = returncode
        self.stderr = stderr


class RunnerError(ProctorError):
    """The evaluator could not be started: `argv` is the command as far as it was built (secrets redacted; empty
    when the command itself could not be parsed), `cwd` the directory it was to run in."""

    def __init__(self, message: str, *, argv: Sequence[str] = (), cwd: Path | str | None = None) -> None:
        super().__init__(message)
        self.argv = redact_argv(argv)
        self.cwd = _optional_path(cwd)


class InterpreterError(ProctorError):
    """The configured or found interpreter cannot be used; `program` is the one tried (None: none was found)."""

    def __init__(self, message: str, *, program: Path | str | None = None) -> None:
        super().__init__(message)
        self.program = _optional_path(program)


class IntegrityError(ProctorError):
    """A refusal; `code` names the integrity rule behind it when there is one (e.g. IN006)."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class RegistryError(ProctorError):
    """The evaluation registry cannot be used; `path` is the registry file when one was read."""

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.path = _optional_path(path)


class CampaignError(ProctorError):
    """A campaign cannot start or resume; `path` is the repository, checkpoint or file behind it, if any."""

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.path = _optional_path(path)


class IterationEvaluationError(CampaignError, RuntimeError):
    """The external evaluator failed under policy `raise`: the candidate was not recorded."""


class IterationEvaluationValidationError(IterationEvaluationError):
    """The external evaluator returned malformed metrics, directions or metadata."""


class JudgeError(ProctorError):
    """The judge cannot run. At the HTTP edge: `url` (redacted), the HTTP `status` when the endpoint answered,
    the `model` asked for; at the file edge: the items or labels `path` and its 1-based `line`."""

    def __init__(
        self,
        message: str,
        *,
        url: str | None = None,
        status: int | None = None,
        model: str | None = None,
        path: Path | str | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.url = None if url is None else redact_url(url)
        self.status = status
        self.model = model
        self.path = _optional_path(path)
        self.line = line


class JobQueueError(ProctorError):
    """A queue URL that names no queue, or a queue that cannot be reached; `url` is it, password redacted."""

    def __init__(self, message: str, *, url: str | None = None) -> None:
        super().__init__(message)
        self.url = None if url is None else redact_url(url)


class StateDirError(ProctorError):
    """The state directory cannot be written; `path` is the directory tried."""

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.path = _optional_path(path)


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
