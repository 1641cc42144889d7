"""The workspace copy verify runs in, and one evaluator run there.

The user's workspace is never touched: it is copied (without .git, .venv, node_modules, .proctor and any
`__pycache__`) into a temp dir, and every run happens in that copy, in the same sandbox campaigns use.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.config import Config
from core.errors import RunnerError, WorkspaceError
from core.interpreter import ProjectPython
from core.run.isolation import Isolation
from core.runner import RunResult, SandboxChoice, run_evaluator
from core.scoreline import Score, parse_stdout

__all__ = ["COPY_EXCLUDES", "EvaluatorRun", "ScratchWorkspace", "copy_workspace", "relative_inside"]

COPY_EXCLUDES = (".git", ".venv", "node_modules", ".proctor", "__pycache__")


@dataclass(frozen=True)
class EvaluatorRun:
    """One evaluator run, or the reason it could not start."""

    result: RunResult | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.ok

    @property
    def stdout(self) -> str:
        return self.result.stdout if self.result is not None else ""

    @property
    def score(self) -> Score | None:
        return parse_stdout(self.stdout).score if self.result is not None else None

    def why_failed(self) -> str:
        if self.result is None:
            return f"could not start: {self.error}"
        return self.result.failure_reason()


class ScratchWorkspace:
    """The temp copy verify runs in, with the config's paths resolved inside it."""

    def __init__(
        self,
        root: Path,
        config: Config,
        choice: SandboxChoice,
        holdout: str = "",
        python: ProjectPython | None = None,
        origin: Path | None = None,
    ) -> None:
        self.root = root
        self.interpreter = python.sandbox_interpreter() if python is not None else None
        self.config = config
        self.choice = choice
        self.isolation = Isolation.from_config(config, holdout, workspace=origin)
        self.results: list[RunResult] = []
        self.suite_rel = relative_inside(root, config.evaluation_dir, "evaluation_dir", directory=True)
        self.suite = root / self.suite_rel
        self.result_rel = f"{self.suite_rel}/result.json"
        self.result_path = self.suite / "result.json"
        self.runs = 0

    def run(self, extra_args: Sequence[str] = ()) -> EvaluatorRun:
        """A run from a clean slate: result.json from an earlier run must not be mistaken for this run's."""
        if self.result_path.is_file() or self.result_path.is_symlink():
            self.result_path.unlink()
        self.runs += 1
        try:
            result = run_evaluator(
                self.config.command,
                self.root,
                timeout_s=self.config.timeout_s,
                sandbox=self.choice,
                extra_args=extra_args,
                isolation=self.isolation,
                interpreter=self.interpreter,
            )
        except RunnerError as exc:
            return EvaluatorRun(None, str(exc))
        self.results.append(result)
        return EvaluatorRun(result)


def relative_inside(root: Path, value: str, key: str, *, directory: bool = False) -> str:
    """A config path as a clean workspace-relative posix path; refuse one that leaves the workspace.

    Verify deletes and replaces files at these paths (result.json, the entry point) in its copy, so a path
    that escapes (absolute, `..`, or through a symlinked directory) must never reach that code.
    """
    path = Path(value)
    if path.is_absolute() or ".." in path.parts:
        raise WorkspaceError(f"`{key}` must be a path inside the workspace, found {value!r}", path=value)
    rel = path.as_posix().strip("/") or "."
    base = root.resolve()
    parent = (root / rel).resolve() if directory else (root / rel).parent.resolve()
    if parent != base and base not in parent.parents:
        raise WorkspaceError(f"`{key}` {value!r} leads outside the workspace through a symlink", path=parent)
    return rel


def copy_workspace(source: Path, target: Path) -> None:
    """Copy `source` to `target` with symlinks kept as links (never followed out of the workspace)."""
    try:
        shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns(*COPY_EXCLUDES))
    except (shutil.Error, OSError) as exc:
        detail = exc.args[0][0] if isinstance(exc, shutil.Error) and exc.args and exc.args[0] else exc
        raise WorkspaceError(
            f"cannot copy workspace {str(source)!r} to run it: {detail}", path=source
        ) from None
