"""The two sandboxes of one evaluator run (SPEC §4.5): what E and C see, built from the config.

E (the trusted evaluator) sees the materialized tree with the suite and the protected inputs (data dir,
brief, `protected_paths`) bound read-only — a change undone before the run ends is impossible, not just
detected — a writable `<suite>/result.json`, the shared scratch dir (HOME, TMPDIR), the read-only bytecode
prefix, the hold-out dir, and the stub in place of the entry point. C (the candidate) starts from an empty
root: the system directories and the interpreter read-only, a writable copy of the tree without the suite
and the protected inputs (bar `candidate_reads`), and E's scratch dir at the same path; its own user, pid,
ipc and network namespaces. Neither the hold-out, the workspace, other candidates nor Proctor exist there.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import WorkspaceError
from core.run.mounts import Mount, MountPlan, system_mounts

if TYPE_CHECKING:
    from core.config import Config
    from core.sandbox import Interpreter

__all__ = ["HOLDOUT_ENV", "Isolation", "RunLayout", "copy_candidate_tree", "resolve_holdout"]

HOLDOUT_ENV = "PROCTOR_HOLDOUT_DIR"
RUN_CANDIDATE_ENV = "PROCTOR_RUN_CANDIDATE"
RUN_CANDIDATE_NAME = "proctor-run-candidate"
BRIEF_SUFFIX = ".brief.md"


@dataclass(frozen=True)
class Isolation:
    """What a run's sandboxes protect and share, from the config (paths relative to the tree)."""

    suite: str
    protected: tuple[str, ...]
    entry_point: str = ""
    candidate_reads: tuple[str, ...] = ()
    holdout_dir: str = ""
    workspace: str = ""
    """The measured workspace (the repository), never visible in C even when an interpreter directory
    (an editable install's path entry, a venv's parent) would show it."""
    evaluator_network: bool = False
    candidate_network: bool = False

    @classmethod
    def from_config(cls, config: Config, holdout_dir: str = "", workspace: Path | None = None) -> Isolation:
        from core.integrity.manifest import protected_inputs

        return cls(
            suite=_clean(config.evaluation_dir),
            protected=tuple(p for p in (_clean(r) for r in protected_inputs(config)) if p),
            entry_point=_clean(config.entry_point),
            candidate_reads=tuple(p for p in (_clean(r) for r in config.candidate_reads) if p),
            holdout_dir=holdout_dir,
            workspace=os.path.realpath(workspace) if workspace is not None else "",
            evaluator_network=config.evaluator_network,
            candidate_network=config.candidate_network,
        )

    def hidden(self, rel: str) -> bool:
        """True when C must not see `rel`: inside the suite or a protected input, a brief, or a `.git` (its
        history holds every protected byte, and its config runs commands)."""
        if rel == ".git" or rel.startswith(".git/"):
            return True
        roots = (self.suite, *self.protected)
        return rel.endswith(BRIEF_SUFFIX) or any(rel == r or rel.startswith(r + "/") for r in roots)


def _clean(value: str) -> str:
    rel = Path(value.strip()).as_posix().strip("/") if value.strip() else ""
    return "" if rel == "." else rel


def resolve_holdout(configured: str, workspace: Path) -> str:
    """The hold-out dir (PROCTOR_HOLDOUT_DIR wins over the config; relative to the workspace root) as a real
    path, or "" when none.

    Refused when it is not an existing directory or lies inside the workspace: C copies the workspace, so
    labels kept there are not held out at all.
    """
    raw = os.environ.get(HOLDOUT_ENV, "").strip() or configured.strip()
    if not raw:
        return ""
    where = f"{HOLDOUT_ENV}" if os.environ.get(HOLDOUT_ENV, "").strip() else "holdout_dir"
    path = Path(os.path.expanduser(raw))
    if not path.is_absolute():
        path = Path(workspace) / path  # relative to the workspace root, e.g. "../churn-holdout"
    if not path.is_dir():
        raise WorkspaceError(f"{where} {raw!r} is not a directory", path=path)
    real = Path(os.path.realpath(path))
    root = Path(os.path.realpath(workspace))
    if real == root or root in real.parents or real in root.parents:
        raise WorkspaceError(
            f"{where} {raw!r} is inside the workspace {str(root)!r} (or contains it): keep hold-out data "
            "outside, where a candidate's sandbox cannot reach it",
            path=real,
        )
    return str(real)


@dataclass(frozen=True)
class RunLayout:
    """The directories of one run: `root` holds scratch (shared by E and C), the bytecode prefix (read-only
    in both), the service dir (the socket and the stub, read-only in E) and E's writable result.json."""

    root: Path

    @property
    def scratch(self) -> Path:
        return self.root / "scratch"

    @property
    def pycache(self) -> Path:
        return self.root / "pycache"

    @property
    def service(self) -> Path:
        return self.root / "service"

    @property
    def socket(self) -> Path:
        return self.service / "sock"

    @property
    def stub(self) -> Path:
        return self.service / "entry_stub.py"

    @property
    def entry_source(self) -> Path:
        return self.service / "entry_source.py"

    @property
    def run_candidate(self) -> Path:
        return self.service / RUN_CANDIDATE_NAME

    @property
    def result(self) -> Path:
        return self.root / "result.json"

    def candidate_dir(self, number: int) -> Path:
        return self.root / f"c-{number}"


def brief_files(tree: Path) -> list[str]:
    """Every `*.brief.md` in the tree (tree-relative), found with an iterative walk."""
    found, stack = [], [tree]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.name.endswith(BRIEF_SUFFIX):
                found.append(Path(entry.path).relative_to(tree).as_posix())
    return found


def evaluator_plan(
    iso: Isolation,
    layout: RunLayout,
    tree: Path,
    interpreter: Interpreter,
    *,
    stub: bool,
) -> MountPlan:
    """E: the tree writable except the suite and protected inputs (read-only), result.json writable."""
    from core.sandbox import interpreter_mounts

    root = os.path.realpath(tree)
    mounts = [Mount("rw", root), Mount("rw", str(layout.scratch)), Mount("ro", str(layout.pycache))]
    mounts.append(Mount("ro", str(layout.service)))
    for rel in dict.fromkeys([iso.suite, *iso.protected, *brief_files(tree)]):
        path = tree / rel
        if os.path.lexists(path) and not path.is_symlink():
            mounts.append(Mount("ro", f"{root}/{rel}"))
    if (tree / iso.suite).is_dir() and not (tree / iso.suite).is_symlink():
        mounts.append(Mount("rw", f"{root}/{iso.suite}/result.json", str(layout.result)))
    if stub:
        mounts.append(Mount("ro", f"{root}/{iso.entry_point}", str(layout.stub)))
    if iso.holdout_dir:
        mounts.append(Mount("ro", iso.holdout_dir))
    mounts += interpreter_mounts(interpreter, [root, str(layout.scratch)])
    return MountPlan(chdir=root, mounts=tuple(mounts), network=iso.evaluator_network)


def candidate_plan(
    iso: Isolation,
    layout: RunLayout,
    tree: Path,
    copy: Path,
    interpreter: Interpreter,
    *,
    cwd: str,
    new_root: Path,
    extra_read_only: Sequence[str] = (),
) -> MountPlan:
    """C: an empty root with the system, the interpreter, its copy of the tree and the shared scratch."""
    from core.sandbox import interpreter_mounts

    root = os.path.realpath(tree)
    mounts = [*system_mounts(), Mount("tmpfs", "/tmp")]
    mounts += interpreter_mounts(interpreter, [], all_dirs=True)
    mounts += [Mount("ro", path) for path in extra_read_only if os.path.isdir(path)]
    mounts += [
        Mount("rw", root, str(copy)),
        Mount("rw", str(layout.scratch)),
        Mount("ro", str(layout.pycache)),
    ]
    for rel in iso.candidate_reads:
        if (copy / rel).is_file() and not (copy / rel).is_symlink():
            mounts.append(Mount("ro", f"{root}/{rel}", str(copy / rel)))
    bound = [m.dest for m in mounts if m.kind in ("ro", "rw")]
    for hidden in (iso.holdout_dir, iso.workspace):
        # Under a read-only bind (the interpreter's): an empty dir on top; deeper binds (a venv inside the
        # workspace) still land above it. The tree's own path is C's copy, never hidden.
        if hidden and hidden != root and any(_under(hidden, b) for b in bound):
            mounts.append(Mount("tmpfs", hidden))
    return MountPlan(
        chdir=cwd,
        mounts=tuple(mounts),
        host_root=False,
        new_root=str(new_root),
        network=iso.candidate_network,
        new_user=True,
    )


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def copy_candidate_tree(tree: Path, dest: Path, iso: Isolation) -> None:
    """C's writable copy: every regular file, directory and symlink of `tree` except what C must not see
    (the suite, protected inputs and briefs; a `candidate_reads` file is kept). Iterative, never follows a
    symlink, skips devices and fifos: a hostile tree can be deep, odd or huge, and this still ends."""
    allowed = set(iso.candidate_reads)
    dest.mkdir(parents=True)
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            entries = list(os.scandir(tree / rel_dir if rel_dir else tree))
        except OSError:
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if iso.hidden(rel) and rel not in allowed and not any(a.startswith(rel + "/") for a in allowed):
                continue
            target = dest / rel
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISDIR(mode):
                    target.mkdir()
                    stack.append(rel)
                elif stat.S_ISLNK(mode):
                    os.symlink(os.readlink(entry.path), target)
                elif stat.S_ISREG(mode) and (not iso.hidden(rel) or rel in allowed):
                    shutil.copyfile(entry.path, target, follow_symlinks=False)
                    os.chmod(target, 0o755 if mode & 0o111 else 0o644)
            except OSError:
                continue
