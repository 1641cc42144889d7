"""Delivering a commit as a pull request, idempotently (SPEC §10 "Delivery"), as Renovate and Dependabot
treat their own branches.

`deliver` pushes one commit to a branch the app owns (`proctor/delivered/pr-<n>`, `proctor/prompt/<task>`) and
opens a pull request from it, or updates the one that is open. The rules, in the order they are checked:

- a commit that changes `.github/workflows/` (against `since`, the tip it is delivered onto) is not delivered;
- no open pull request, and one was closed without merging while it held this very commit: not reopened;
- the branch's tip is a commit the app never pushed (a person pushed to it): it is not overwritten;
- otherwise the branch is pushed (created, or force-pushed over the app's own last push, with a lease so a
  push that lands in between is never lost), then the open pull request's title and body are edited, or a
  new one is opened. Never two: GitHub is asked which pull requests exist, every time.

The installation token reaches git in memory only (`fetch.credential_env`) and never appears in what this
module returns or sends: git's messages are scrubbed of it.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from core.errors import GitError
from core.integrity.git import diff_tree, git_argv, is_object_id
from github_app.fetch import credential_env

if TYPE_CHECKING:
    from github_app.port import GitHubPort, PullInfo

WORKFLOWS_DIR = ".github/workflows/"
MARKER = "<!-- proctor:delivery commit={commit} -->"
GIT_TIMEOUT_S = 300

Outcome = Literal["opened", "updated", "unchanged", "workflows", "declined", "person_pushed"]


class DeliveryLog(Protocol):
    """Which commits the app pushed to which branch (`Store` implements it): a branch is the app's own
    while its tip is one of them."""

    def record_delivery_push(self, repo: str, branch: str, sha: str) -> None: ...

    def pushed_by_app(self, repo: str, branch: str, sha: str) -> bool: ...


@dataclass(frozen=True)
class Delivered:
    """What happened, and one Markdown sentence saying so for the PR comment (no candidate text in it)."""

    outcome: Outcome
    branch: str
    commit: str
    pull_number: int | None = None

    @property
    def delivered(self) -> bool:
        return self.outcome in ("opened", "updated", "unchanged")

    @property
    def message(self) -> str:
        where = f"#{self.pull_number}" if self.pull_number is not None else "a pull request"
        short = self.commit[:12]
        return {
            "opened": f"Delivered `{short}` as {where} from `{self.branch}`.",
            "updated": f"Updated {where}: `{self.branch}` now holds `{short}`.",
            "unchanged": f"{where} from `{self.branch}` already holds `{short}`.",
            "workflows": (
                f"Not delivered: `{short}` changes `{WORKFLOWS_DIR}`, and Proctor never delivers workflow "
                "changes. Review and apply that commit by hand if you want it."
            ),
            "declined": (
                f"Not delivered: {where} with `{short}` was closed without merging, so Proctor does not open "
                "it again. A new winner is delivered again."
            ),
            "person_pushed": (
                f"Not delivered: someone pushed to `{self.branch}`, and Proctor does not overwrite a branch a "
                f"person pushed to. Delete the branch (or merge {where}) to let Proctor deliver `{short}`."
            ),
        }[self.outcome]


@dataclass(frozen=True)
class DeliveryRequest:
    """One commit to deliver: from `git_dir` (holding `commit`) to `branch` of `repo` at `remote_url`, as a
    pull request into `base`. `since` (optional) is the commit the delivery goes onto: a `commit` that changes
    `.github/workflows/` against it is refused."""

    repo: str
    remote_url: str
    git_dir: Path
    commit: str
    branch: str
    base: str
    title: str
    body: str
    since: str = ""


def deliver(gh: GitHubPort, log: DeliveryLog, request: DeliveryRequest) -> Delivered:
    """Push `request.commit` to `request.branch` and open or update its pull request (rules: module doc)."""
    commit, branch = request.commit, request.branch
    if not is_object_id(commit):
        raise GitError(f"not a commit id: {commit!r}")
    if request.since and touches_workflows(request.git_dir, request.since, commit):
        return Delivered("workflows", branch, commit)
    pulls = gh.list_pulls(request.repo, head_branch=branch)
    open_pull = next((p for p in pulls if p.state == "open" and p.base_ref == request.base), None)
    if open_pull is None:
        closed = _closed_with(pulls, commit)
        if closed is not None:
            return Delivered("declined", branch, commit, closed.number)
    token = gh.token()
    tip = remote_tip(request.git_dir, request.remote_url, token, branch)
    number = open_pull.number if open_pull is not None else None
    if tip is not None and tip != commit and not log.pushed_by_app(request.repo, branch, tip):
        return Delivered("person_pushed", branch, commit, number)
    if tip != commit:
        log.record_delivery_push(request.repo, branch, commit)  # before the push: a crash after it is ours
        push(request.git_dir, request.remote_url, token, commit, branch, expected=tip)
    body = f"{MARKER.format(commit=commit)}\n{request.body}"
    if open_pull is None:
        created = gh.create_pull(request.repo, title=request.title, head=branch, base=request.base, body=body)
        return Delivered("opened", branch, commit, created)
    if tip == commit and open_pull.body == body:
        return Delivered("unchanged", branch, commit, open_pull.number)
    gh.update_pull(request.repo, open_pull.number, title=request.title, body=body)
    return Delivered("updated", branch, commit, open_pull.number)


def _closed_with(pulls: list[PullInfo], commit: str) -> PullInfo | None:
    """A pull request closed without merging while it held `commit` (its head, or the marker in its body)."""
    marker = MARKER.format(commit=commit)
    for pull in pulls:
        if pull.state == "closed" and not pull.merged and (pull.head_sha == commit or marker in pull.body):
            return pull
    return None


def touches_workflows(git_dir: Path, since: str, commit: str) -> bool:
    """Whether `commit` adds, changes or deletes anything under `.github/workflows/` compared with `since`."""
    return any(change.path.startswith(WORKFLOWS_DIR) for change in diff_tree(git_dir, since, commit))


def _remote_git(git_dir: Path, token: str, args: tuple[str, ...], what: str) -> str:
    """One git command against a remote with the token in memory; failures are GitError without the token."""
    argv = git_argv(git_dir, args)
    try:
        proc = subprocess.run(
            argv, env=credential_env(token), capture_output=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"{what} timed out after {GIT_TIMEOUT_S} s", argv=argv) from None
    if proc.returncode != 0:
        stderr = proc.stderr.decode("utf-8", "replace")
        stderr = stderr.replace(token, "***") if token else stderr
        lines = [line for line in stderr.splitlines() if line.strip()]
        detail = (
            lines[-1].removeprefix("fatal: ").removeprefix("error: ") if lines else f"exit {proc.returncode}"
        )
        raise GitError(f"{what} failed: {detail}", argv=argv, returncode=proc.returncode, stderr=stderr)
    return proc.stdout.decode("utf-8", "replace")


def remote_tip(git_dir: Path, remote_url: str, token: str, branch: str) -> str | None:
    """The commit `branch` points at on the remote, None when it does not exist."""
    out = _remote_git(
        git_dir, token, ("ls-remote", "--", remote_url, f"refs/heads/{branch}"), f"git ls-remote {branch}"
    )
    for line in out.splitlines():
        sha, _, ref = line.partition("\t")
        if ref.strip() == f"refs/heads/{branch}" and is_object_id(sha):
            return sha
    return None


def push(
    git_dir: Path, remote_url: str, token: str, commit: str, branch: str, *, expected: str | None
) -> None:
    """Point the remote's `branch` at `commit`, only if it still is `expected` (None: must not exist)."""
    ref = f"refs/heads/{branch}"
    lease = f"--force-with-lease={ref}:{expected or ''}"
    args = ("push", "--quiet", "--no-verify", lease, "--", remote_url, f"{commit}:{ref}")
    _remote_git(git_dir, token, args, f"git push to {branch}")
