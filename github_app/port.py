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
    ) -> None: ...

    def find_comment(self, repo: str, number: int, marker: str) -> int | None:
        """The id of the app's own comment on issue/PR `number` whose body holds `marker`, if any."""
        ...

    def create_comment(self, repo: str, number: int, body: str) -> int: ...

    def update_comment(self, repo: str, comment_id: int, body: str) -> bool:
        """False when the comment no longer exists (someone deleted it)."""
        ...

    def get_pull(self, repo: str, number: int) -> PullRequestRef: ...
