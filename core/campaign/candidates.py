"""Where candidates come from (SPEC §5.1): existing refs (a list or globs), or a generator command.

A generator runs in a fresh materialized copy of the parent that is its own little git repository, so it can
commit; its commit is fetched into the measured repository under `refs/proctor/generated/<campaign>/<n>`.
It sees only `PROCTOR_FEEDBACK`: earlier candidates' internal scores, statuses and finding codes.
"""

from __future__ import annotations

import fnmatch
import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.atomic import atomic_write_json
from core.campaign.model import CandidateRecord
from core.errors import CampaignError, GitError
from core.treewalk import remove_tree

if TYPE_CHECKING:
    from core.sandbox import SandboxChoice

GLOB_CHARS = frozenset("*?[")
GENERATED_PREFIX = "refs/proctor/generated"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "Proctor generator",
    "GIT_AUTHOR_EMAIL": "generator@proctor.invalid",
    "GIT_COMMITTER_NAME": "Proctor generator",
    "GIT_COMMITTER_EMAIL": "generator@proctor.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}


@dataclass(frozen=True)
class ResolvedRef:
    ref: str
    commit: str


def short_ref(refname: str) -> str:
    """`refs/heads/candidate/x` → `candidate/x`: how people name branches."""
    return refname.removeprefix("refs/heads/")


def normalize_spec(spec: str | Sequence[str]) -> list[str]:
    items = [spec] if isinstance(spec, str) else list(spec)
    cleaned = [item.strip() for item in items if item.strip()]
    if not cleaned:
        raise CampaignError("no candidates given: pass --candidates REF... or set campaign.candidates")
    return cleaned


def resolve_candidates(repo: Path, spec: Sequence[str]) -> list[ResolvedRef]:
    """Resolve refs and ref globs to commits, in the order given (a glob's matches sorted by name)."""
    from core.integrity.git import resolve_commit, run_git

    listing: list[tuple[str, str]] | None = None
    found: list[ResolvedRef] = []
    seen: set[str] = set()
    for item in spec:
        if GLOB_CHARS & set(item):
            if listing is None:
                listing = _all_refs(
                    run_git(
                        repo, "for-each-ref", "--format=%(refname) %(objecttype) %(objectname) %(*objectname)"
                    )
                )
            patterns = [item] if item.startswith("refs/") else [item, f"refs/heads/{item}", f"refs/{item}"]
            matches = sorted(
                (name, sha) for name, sha in listing if any(fnmatch.fnmatchcase(name, p) for p in patterns)
            )
            if not matches:
                raise CampaignError(
                    f"no refs in {repo} match the candidate pattern {item!r}; create branches such as "
                    "candidate/<name>, or pass --candidates REF..."
                )
            for name, sha in matches:
                if name not in seen:
                    seen.add(name)
                    found.append(ResolvedRef(short_ref(name), sha))
        elif item not in seen:
            seen.add(item)
            found.append(ResolvedRef(item, resolve_commit(repo, item)))
    return found


def _all_refs(text: str) -> list[tuple[str, str]]:
    refs = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        name, kind, sha = parts[0], parts[1], parts[2]
        if kind == "tag" and len(parts) > 3:
            sha = parts[3]  # an annotated tag: measure the commit it points at
        elif kind != "commit":
            continue
        refs.append((name, sha))
    return refs


# ------------------------------------------------------------------------------------------ generator


def feedback_payload(
    metric_name: str, direction: str, baseline: CandidateRecord | None, records: Sequence[CandidateRecord]
) -> dict[str, Any]:
    """What a generator may learn: internal scores, statuses and finding codes — nothing else (SPEC §5.1)."""
    return {
        "metric": {"name": metric_name, "direction": direction},
        "baseline": {"score": baseline.score if baseline is not None else None},
        "candidates": [
            {
                "iteration": record.index,
                "commit": record.commit,
                "status": record.status,
                "score": record.score,
                "findings": list(record.finding_codes),
            }
            for record in sorted(records, key=lambda r: r.index)
        ],
    }


@dataclass(frozen=True)
class Generated:
    """One generator run: the fetched commit, or the reason there is none (a failed candidate)."""

    ref: str
    commit: str | None
    reason: str
    stdout_tail: str
    stderr_tail: str
    duration_s: float


def generated_ref(campaign_id: str, iteration: int) -> str:
    return f"{GENERATED_PREFIX}/{campaign_id}/{iteration}"


def existing_generated(repo: Path, campaign_id: str, iteration: int) -> str | None:
    """The commit a killed run already generated for `iteration` (so resume measures it, not a new one)."""
    from core.integrity.git import run_git

    ref = generated_ref(campaign_id, iteration)
    out = run_git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip()
    return out or None


def run_generator(
    repo: Path,
    *,
    command: str,
    parent_commit: str,
    campaign_id: str,
    iteration: int,
    feedback: dict[str, Any],
    timeout_s: float,
    work_root: Path,
    sandbox: SandboxChoice | None = None,
    hidden: Sequence[str] = (),
) -> Generated:
    """Run the generator once in a fresh copy of the parent and fetch the commit it makes.

    Under a full namespace `sandbox` it runs like a candidate: the host read-only, its copy writable, the
    `hidden` paths (the measured repository with its .git, the hold-out) empty, its own pid and user
    namespaces, a scrubbed environment; the network stays (an agent talks to its model). Otherwise, and
    when the campaign runs at the `process` level, it runs there, as unisolated as the campaign.
    """
    from core.campaign.worker import tail
    from core.integrity.git import run_git
    from core.integrity.materialize import materialize
    from core.run.mounts import PlainView
    from core.runner import choose_sandbox, run_evaluator

    ref = generated_ref(campaign_id, iteration)
    workdir = Path(tempfile.mkdtemp(prefix=f"generate-{iteration}-", dir=work_root))
    try:
        copy = workdir / "workspace"
        materialize(repo, parent_commit, copy)
        feedback_path = workdir / "feedback.json"
        atomic_write_json(feedback_path, feedback)
        ident = ["-c", "user.name=Proctor", "-c", "user.email=proctor@proctor.invalid"]
        run_git(copy, "init", "--quiet")
        run_git(copy, "add", "--all", "--force")
        run_git(
            copy, *ident, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", f"parent {parent_commit}"
        )
        start = run_git(copy, "rev-parse", "HEAD").strip()
        isolated = sandbox is not None and sandbox.level == "namespace" and sandbox.read_only_fs
        view = PlainView(hidden=tuple(p for p in hidden if p), read_only=(str(feedback_path),), network=True)
        run = run_evaluator(
            f"sh -c {shlex.quote(command)}",
            copy,
            timeout_s=timeout_s,
            sandbox=sandbox if isolated and sandbox is not None else choose_sandbox("process"),
            view=view,
            extra_env={
                "PROCTOR_FEEDBACK": str(feedback_path),
                "PROCTOR_ITERATION": str(iteration),
                **_IDENTITY,
            },
        )
        tails = (tail(run.stdout), tail(run.stderr), run.duration_s)
        if not run.ok:
            return Generated(ref, None, f"the generator failed: {run.failure_reason()}", *tails)
        head = run_git(copy, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).strip()
        if not head or head == start:
            return Generated(ref, None, "the generator made no commit", *tails)
        run_git(repo, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", str(copy), f"+HEAD:{ref}")
        fetched = run_git(repo, "rev-parse", "--verify", f"{ref}^{{commit}}").strip()
        if fetched != head:
            return Generated(ref, None, f"the generator's HEAD moved while fetching ({head[:12]})", *tails)
        return Generated(ref, fetched, "", *tails)
    except GitError as exc:
        return Generated(ref, None, f"could not collect the generator's commit: {exc}", "", "", 0.0)
    except Exception as exc:  # a parent tree that cannot be written (OS, depth) fails this iteration only
        reason = f"could not run the generator: {type(exc).__name__}: {exc}"
        return Generated(ref, None, reason, "", "", 0.0)
    finally:
        remove_tree(workdir)


def source_description(spec: dict[str, Any]) -> str:
    if spec.get("kind") == "generator":
        return f"generator {spec.get('command')!r} × {spec.get('iterations')}"
    if spec.get("kind") == "prompt":
        return (
            f"prompt {spec.get('prompt_file')!r}: {spec.get('iterations')} iteration(s) × "
            f"{spec.get('rewrites')} rewrite(s)"
        )
    return "refs " + " ".join(spec.get("refs", []))
