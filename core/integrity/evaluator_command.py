"""What the evaluator's command line says about its interpreter's first `sys.path` entries (IN007).

`python X.py` puts the script's directory first, `python -m` and `-c` the workspace root, `-I`/`-P` drop that
first entry, `PYTHONPATH=` entries follow (unless `-I`/`-E`), and pytest's default `prepend` import mode puts
the test roots (up to the workspace root) on the path. Wrappers (`env`, `uv run`, `timeout`, ...) are skipped.
Pure string analysis: nothing here reads a file or starts a process.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field

OUTSIDE = "\0outside"  # a path outside the workspace (absolute, or `..` past the root)

_WRAPPERS_WITH_RUN = frozenset({"uv", "poetry", "pipenv", "hatch", "pdm", "rye", "conda"})
_PLAIN_WRAPPERS = frozenset({"exec", "nice", "nohup", "stdbuf", "time", "timeout", "xvfb-run", "command"})
_OPTS_WITH_ARG = frozenset(
    {"--with", "-p", "--python", "--project", "--directory", "--env-file", "-n", "--name"}
)
_ENV_OPTS_WITH_ARG = frozenset({"-u", "-C", "--unset", "--chdir"})
_PY_OPTS_WITH_ARG = frozenset("WXQ")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^(python|pypy)[0-9.]*$")


@dataclass
class EvaluatorCommand:
    """Where the evaluator's interpreter starts looking for modules, as far as its command line tells."""

    path0: str | None = None  # workspace-relative dir, or None when nothing is prepended
    pythonpath: list[str] = field(default_factory=list)
    pytest: bool = False
    script: str | None = None
    known: bool = True


def norm_rel(path: str) -> str:
    """A workspace-relative posix path, normalised; `OUTSIDE` for one that leaves the workspace."""
    if path.startswith("/"):
        return OUTSIDE
    norm = posixpath.normpath(path)
    if norm == ".":
        return ""
    if norm == ".." or norm.startswith("../"):
        return OUTSIDE
    return norm


def analyse_command(command: str) -> EvaluatorCommand:
    """Where the evaluator's interpreter starts looking for modules, from the command line alone."""
    try:
        words = shlex.split(command)
    except ValueError:
        return EvaluatorCommand(path0="", known=False)
    env, index = _skip_wrappers(words)
    if index >= len(words):
        return EvaluatorCommand(path0="", known=False)
    result = EvaluatorCommand()
    prog = posixpath.basename(words[index])
    ignore_env = False
    if _PYTHON.match(prog):
        ignore_env = _python_arguments(words[index + 1 :], result)
    elif prog in ("pytest", "py.test"):
        # pytest's default `prepend` import mode puts test roots (up to the workspace root) on sys.path.
        result.pytest = True
        result.path0 = ""
    elif prog.endswith(".py"):
        result.script = words[index]
        directory = norm_rel(posixpath.dirname(words[index]))
        result.path0 = None if directory == OUTSIDE else directory
    else:
        result.path0 = ""
        result.known = False
    if not ignore_env and env.get("PYTHONPATH"):
        result.pythonpath = [
            rel for rel in (norm_rel(p or ".") for p in env["PYTHONPATH"].split(":")) if rel != OUTSIDE
        ]
    return result


def _skip_options(words: list[str], index: int, with_argument: frozenset[str]) -> int:
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in with_argument else 1
    return index


def _skip_wrappers(words: list[str]) -> tuple[dict[str, str], int]:
    """The `NAME=value` assignments before the program, and the index of the program itself."""
    env: dict[str, str] = {}
    index = 0
    while index < len(words):
        word = words[index]
        base = posixpath.basename(word)
        if _ASSIGNMENT.match(word):
            key, _, value = word.partition("=")
            env[key] = value
            index += 1
        elif base == "env":
            index = _skip_options(words, index + 1, _ENV_OPTS_WITH_ARG)
        elif base in _WRAPPERS_WITH_RUN and index + 1 < len(words) and words[index + 1] == "run":
            index = _skip_options(words, index + 2, _OPTS_WITH_ARG)
        elif base in _PLAIN_WRAPPERS:
            index += 1
            while index < len(words) and (words[index].startswith("-") or re.match(r"^\d", words[index])):
                index += 1
        else:
            break
    return env, index


@dataclass
class _Flags:
    safe_path: bool = False  # -I or -P: no first entry
    ignore_env: bool = False  # -I or -E: PYTHONPATH is not read


def _python_arguments(args: list[str], result: EvaluatorCommand) -> bool:
    """Fill `result` from a Python interpreter's arguments; whether it ignores PYTHON* variables."""
    flags = _Flags()
    position = 0
    while position < len(args):
        arg = args[position]
        if arg == "--":
            return flags.ignore_env
        if arg.startswith("--"):
            position += 1
        elif arg.startswith("-") and len(arg) > 1:
            following = args[position + 1] if position + 1 < len(args) else ""
            done, consumed = _short_options(arg[1:], following, flags, result)
            if done:
                break
            position += 1 + consumed
        else:
            result.script = arg
            directory = norm_rel(posixpath.dirname(arg))
            result.path0 = None if flags.safe_path or directory == OUTSIDE else directory
            return flags.ignore_env
    result.path0 = None if flags.safe_path else ""
    return flags.ignore_env


def _short_options(letters: str, following: str, flags: _Flags, result: EvaluatorCommand) -> tuple[bool, int]:
    """One cluster of short options (`-IB`, `-m pkg`, `-W x`): whether it ends the interpreter's options
    (`-m`, `-c`), and how many following arguments it takes."""
    for offset, letter in enumerate(letters):
        if letter in "IP":
            flags.safe_path = True
        if letter in "IE":
            flags.ignore_env = True
        if letter in "mc":
            rest = letters[offset + 1 :] or following
            result.path0 = None if flags.safe_path else ""
            result.pytest = letter == "m" and rest.split(".")[0] in ("pytest", "py")
            return True, 0
        if letter in _PY_OPTS_WITH_ARG:
            return False, 1 if offset == len(letters) - 1 else 0
    return False, 0
