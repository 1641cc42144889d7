"""A recording `GitHubPort` for handler unit tests (STYLE §4): canned reads, every write recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from github_app.port import PullInfo, PullRequestRef


@dataclass
class FakeGH:
    pulls: dict[tuple[str, int], PullRequestRef] = field(default_factory=dict)
    writes: list[tuple[Any, ...]] = field(default_factory=list)
    patches: list[dict[str, Any]] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)
    pull_list: list[PullInfo] = field(default_factory=list)
    reactions: list[tuple[int, str]] = field(default_factory=list)
    _next: int = 100

    def token(self) -> str:
        return "fake-token"

    def create_check_run(
        self,
        repo: str,
        head_sha: str,
        *,
        name: str,
        status: str,
        external_id: str = "",
        details_url: str = "",
    ) -> int:
        self._next += 1
        self.writes.append(("create_check_run", repo, head_sha, status))
        return self._next

    def find_check_run(self, repo: str, head_sha: str, *, name: str, external_id: str) -> int | None:
        self.writes.append(("find_check_run", repo, head_sha))
        return None

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
        self.writes.append(("update_check_run", check_run_id, status, conclusion))
        self.patches.append(
            {
                "id": check_run_id,
                "status": status,
                "conclusion": conclusion,
                "title": title,
                "summary": summary,
                "annotations": list(annotations),
                "actions": list(actions),
            }
        )

    def find_comment(self, repo: str, number: int, marker: str) -> int | None:
        return next((cid for cid, body in self.comments.items() if marker in body), None)

    def create_comment(self, repo: str, number: int, body: str) -> int:
        self._next += 1
        self.comments[self._next] = body
        self.writes.append(("create_comment", repo, number))
        return self._next

    def update_comment(self, repo: str, comment_id: int, body: str) -> bool:
        if comment_id not in self.comments:
            return False
        self.comments[comment_id] = body
        self.writes.append(("update_comment", repo, comment_id))
        return True

    def get_pull(self, repo: str, number: int) -> PullRequestRef:
        return self.pulls[(repo, number)]

    def list_pulls(self, repo: str, *, head_branch: str) -> list[PullInfo]:
        return [p for p in self.pull_list if p.head_ref == head_branch]

    def create_pull(self, repo: str, *, title: str, head: str, base: str, body: str) -> int:
        self._next += 1
        self.pull_list.append(PullInfo(self._next, "open", False, head, "", base, body))
        self.writes.append(("create_pull", repo, head, base))
        return self._next

    def update_pull(self, repo: str, number: int, *, title: str, body: str) -> None:
        self.writes.append(("update_pull", repo, number))

    def add_reaction(self, repo: str, comment_id: int, content: str) -> None:
        self.reactions.append((comment_id, content))
        self.writes.append(("add_reaction", repo, comment_id, content))
