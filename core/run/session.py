"""One evaluator run's sandboxes, set up and torn down around the launch in core/runner.py (SPEC §4.5).

`RunSession.open` prepares the run directory (scratch, bytecode prefix, service dir), installs the stub and
`$PROCTOR_RUN_CANDIDATE`, starts the candidate service and gives the runner E's mount plan and the extra
environment; `finish` puts E's result.json back into the tree and says whether every candidate process
ran in C (`not_isolated`: "" when it did, else why not).
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.run.isolation import HOLDOUT_ENV, RUN_CANDIDATE_ENV, Isolation, RunLayout, evaluator_plan
from core.run.mounts import MountPlan
from core.run.service import CandidateService

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.sandbox import Interpreter, SandboxChoice

__all__ = ["RunSession"]

_STUB = Path(__file__).with_name("stub.py")


@dataclass
class RunSession:
    """The sandboxes of one run; `plan` is None when E runs without them (the `process` level)."""

    layout: RunLayout
    tree: Path
    env: dict[str, str]
    plan: MountPlan | None
    service: CandidateService | None
    not_isolated: str
    result_existed: bool = False
    result_target: Path | None = None

    @classmethod
    def open(
        cls,
        layout: RunLayout,
        tree: Path,
        choice: SandboxChoice,
        isolation: Isolation | None,
        interpreter: Interpreter,
        *,
        deadline: float,
        preexec: Callable[[], None],
        mirror: Path | None,
    ) -> RunSession:
        layout.service.mkdir(parents=True, exist_ok=True)
        sandboxed = choice.level == "namespace" and choice.read_only_fs
        env = {}
        if isolation is not None and isolation.holdout_dir:
            env[HOLDOUT_ENV] = isolation.holdout_dir
        if isolation is None:
            return cls(layout, tree, env, None, None, "")
        socket = str(layout.socket) if sandboxed else ""
        _write_stub(layout.run_candidate, interpreter, socket, "", executable=True, flags=" -IS")
        env[RUN_CANDIDATE_ENV] = str(layout.run_candidate)
        why = _not_isolated_before(choice, isolation, tree)
        if not sandboxed:
            return cls(layout, tree, env, None, None, why)
        stub = not why
        if stub:
            entry = tree / isolation.entry_point
            shutil.copyfile(entry, layout.entry_source)
            executable = bool(entry.stat().st_mode & 0o111)
            if entry.suffix == ".py":
                _write_stub(layout.stub, interpreter, socket, str(layout.entry_source), executable=executable)
            else:
                _write_shell_stub(layout, executable=executable)
        session = cls(
            layout, tree, env, evaluator_plan(isolation, layout, tree, interpreter, stub=stub), None, why
        )
        session.result_existed = session._stage_result(isolation)
        extra = (str(mirror),) if mirror is not None else ()
        session.service = CandidateService(
            layout,
            isolation,
            choice,
            tree,
            interpreter,
            deadline=deadline,
            preexec=preexec,
            extra_read_only=extra,
        )
        return session

    def _stage_result(self, isolation: Isolation) -> bool:
        """E writes `<suite>/result.json` through a bind of layout.result: the file must exist in the tree."""
        target = self.tree / isolation.suite / "result.json"
        suite = self.tree / isolation.suite
        if not suite.is_dir() or suite.is_symlink():
            return False
        existed = target.is_file() and not target.is_symlink()
        if existed:
            shutil.copyfile(target, self.layout.result)
        else:
            if os.path.lexists(target):
                target.unlink()
            self.layout.result.touch()
            target.touch()
        self.result_target = target
        return existed

    def finish(self) -> str:
        """Stop the service, put result.json back; returns the not-isolated reason ("" = isolated)."""
        why = self.not_isolated
        if self.service is not None:
            self.service.close()
            if not why and self.service.imported:
                why = "the evaluator imports the entry point in its own process"
        target = self.result_target
        if target is not None:
            written = self.layout.result.is_file() and self.layout.result.stat().st_size > 0
            if written or self.result_existed:
                staged = target.with_name(".result.json.proctor")
                shutil.copyfile(self.layout.result, staged)
                os.replace(staged, target)
            elif target.is_file() and target.stat().st_size == 0:
                target.unlink()
        return why


def _not_isolated_before(choice: SandboxChoice, isolation: Isolation, tree: Path) -> str:
    """Why the candidate cannot get its own sandbox in this run ("" when it can)."""
    if choice.level != "namespace":
        return "the `process` level has no sandboxes: the candidate runs beside the evaluator"
    if not choice.read_only_fs:
        return "this machine's sandbox isolates only the network, not files or processes"
    if not isolation.entry_point:
        return "no entry_point configured: the candidate runs inside the evaluator's sandbox"
    entry = tree / isolation.entry_point
    if entry.is_symlink() or not entry.is_file():
        return f"entry_point {isolation.entry_point} is not a file in the candidate's tree"
    return ""


def _write_shell_stub(layout: RunLayout, *, executable: bool) -> None:
    """A non-Python entry point (`run.sh`): a shell stub that has `$PROCTOR_RUN_CANDIDATE` run it in C."""
    program = shlex.quote(str(layout.run_candidate))
    again = '"$0" "$@"' if executable else '/bin/sh "$0" "$@"'
    text = f"#!/bin/sh\n# Proctor: runs the real entry point in the candidate's sandbox.\nexec {program} -- {again}\n"
    layout.stub.write_text(text, encoding="utf-8")
    layout.stub.chmod(0o755 if executable else 0o644)


@functools.cache
def _stub_source() -> str:
    return _STUB.read_text(encoding="utf-8")


def _write_stub(
    path: Path, interpreter: Interpreter, socket: str, entry_source: str, *, executable: bool, flags: str = ""
) -> None:
    """The stub with its socket and entry source filled in. `flags` go on the `#!` line: `-IS` (no site, no
    PYTHON* variables) for `$PROCTOR_RUN_CANDIDATE`, which forwards only its own arguments; never for the
    entry point, whose interpreter command line the candidate's run repeats."""
    source = _stub_source()
    source = re.sub(
        r'^SOCKET_PATH = ""$', lambda _m: f"SOCKET_PATH = {socket!r}", source, count=1, flags=re.M
    )
    source = re.sub(
        r'^ENTRY_SOURCE = ""$', lambda _m: f"ENTRY_SOURCE = {entry_source!r}", source, count=1, flags=re.M
    )
    path.write_text(f"#!{interpreter.executable}{flags}\n{source}", encoding="utf-8")
    path.chmod(0o755 if executable else 0o644)
