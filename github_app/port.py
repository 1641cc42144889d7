"""`GitHubPort`: the narrow GitHub surface the handlers use (implemented over PyGithub in `gh.py`).

Handlers depend on this Protocol only, so unit tests hand them a recording `FakeGH` and the integration
tests the real PyGithub client against a loopback fake server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class PullRequestRef:
    """What a job needs to know about one pull request, from a webhook payload or the REST API."""

    repo: str  # "owner/name" of the base repository
    number: int
    head_sha: str
    base_sha: str
    head_repo: str  # "owner/name" of the head repository (differs for a fork)
    clone_url: str  # the base repository's clone URL
    head_clone_url: str
    head_ref: str = ""  # the PR's branch name (where a delivery PR goes)

    @property
    def is_fork(self) -> bool:
        return self.head_repo.lower() != self.repo.lower()

    @classmethod
    def from_pull(cls, pull: Mapping[str, Any], repository: Mapping[str, Any]) -> PullRequestRef:
        head, base = pull["head"], pull["base"]
        head_repo = head.get("repo") or {}
        return cls(
            repo=str(repository["full_name"]),
            number=int(pull["number"]),
            head_sha=str(head["sha"]),
            base_sha=str(base["sha"]),
            head_repo=str(head_repo.get("full_name") or ""),
            clone_url=str(repository.get("clone_url") or ""),
            head_clone_url=str(head_repo.get("clone_url") or repository.get("clone_url") or ""),
            head_ref=str(head.get("ref") or ""),
        )


@dataclass(frozen=True)
class PullInfo:
    """One pull request as a delivery sees it: is it open, was it merged, which commit does it hold."""

    number: int
    state: str  # "open" | "closed"
    merged: bool
    head_ref: str
    head_sha: str
    base_ref: str
    body: str
    head_repo: str = ""  # "owner/name" of the head's repository ("" when GitHub did not say)

    @classmethod
    def from_json(cls, pull: Mapping[str, Any]) -> PullInfo:
        head, base = pull.get("head") or {}, pull.get("base") or {}
        head_repo = head.get("repo") or {}
        return cls(
            number=int(pull["number"]),
            state=str(pull.get("state", "open")),
            merged=bool(pull.get("merged_at") or pull.get("merged")),
            head_ref=str(head.get("ref", "")),
            head_sha=str(head.get("sha", "")),
            base_ref=str(base.get("ref", "")),
            body=str(pull.get("body") or ""),
            head_repo=str(head_repo.get("full_name") or "") if isinstance(head_repo, dict) else "",
        )


class GitHubPort(Protocol):
    """GitHub as one installation sees it."""

    def token(self) -> str:
        """An installation access token (cached until shortly before it expires), for git over HTTP."""
        ...

    def create_check_run(
        self,
        repo: str,
        head_sha: str,
        *,
        name: str,
        status: str,
        external_id: str = "",
        details_url: str = "",
    ) -> int: ...

    def find_check_run(self, repo: str, head_sha: str, *, name: str, external_id: str) -> int | None:
        """The check run this app made on `head_sha` with `external_id` (a job re-run after a crash)."""
        ...

    def update_check_run(
        self,
        repo: str,
        check_run_id: int,
        *,
        status: str | None = None,
        conclusion: str | None = None,
        title: str | None = None,
        summary: str | None = None,
        text: str | None = None,
        annotations: Sequence[Mapping[str, Any]] = (),
        actions: Sequence[Mapping[str, str]] = (),
    ) -> None:
        """`actions` are the buttons under the check run (at most 3; identifiers of at most 20 characters)."""
        ...

    def find_comment(self, repo: str, number: int, marker: str) -> int | None:
        """The id of the app's own comment on issue/PR `number` whose body holds `marker`, if any."""
        ...

    def create_comment(self, repo: str, number: int, body: str) -> int: ...

    def update_comment(self, repo: str, comment_id: int, body: str) -> bool:
        """False when the comment no longer exists (someone deleted it)."""
        ...

    def get_pull(self, repo: str, number: int) -> PullRequestRef: ...

    def list_pulls(self, repo: str, *, head_branch: str) -> list[PullInfo]:
        """Every pull request (open and closed) whose head is `head_branch` of `repo` itself."""
        ...

    def create_pull(self, repo: str, *, title: str, head: str, base: str, body: str) -> int: ...

    def update_pull(self, repo: str, number: int, *, title: str, body: str) -> None: ...

    def add_reaction(self, repo: str, comment_id: int, content: str) -> None:
        """React to an issue comment (`eyes`, `rocket`, `confused`, ...); reacting twice is harmless."""
        ...
