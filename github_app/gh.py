"""`GitHubPort` over PyGithub: app JWT → installation token (cached), retries, no client-side throttling.

Retries (SPEC §10 "GitHub failures"): 5xx, and 403/429 that carry `Retry-After` or rate-limit headers, with
backoff, through PyGithub's `GithubRetry` (a urllib3 `Retry`) given as `retry=`; 429 is added to its status
list because PyGithub's default skips it. PyGithub's own pacing between requests is turned off: the app
makes few requests and GitHub's answers say when to slow down.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from github import Auth, Github, GithubIntegration, GithubRetry, UnknownObjectException
from github.IssueComment import IssueComment
from github.PaginatedList import PaginatedList

from github_app.port import PullInfo, PullRequestRef

TOKEN_MARGIN_S = 300.0  # refresh an installation token this long before GitHub says it expires
_MAX_COMMENT_PAGES = 20


def make_retry(total: int = 8, backoff_factor: float = 0.5) -> GithubRetry:
    return GithubRetry(
        total=total,
        backoff_factor=backoff_factor,
        status_forcelist=[*range(500, 600), 429],
        allowed_methods=frozenset({"GET", "POST", "PATCH", "PUT", "DELETE"}),
        respect_retry_after_header=True,
        secondary_rate_wait=10,
        max_rate_limit_wait=900,
    )


class AppClient:
    """The App's identity: signs JWTs and hands out (cached) installation tokens and clients."""

    def __init__(
        self, app_id: int, private_key: str, base_url: str, *, retry: GithubRetry | None = None
    ) -> None:
        self.base_url = base_url
        self.retry = retry or make_retry()
        self.integration = GithubIntegration(
            auth=Auth.AppAuth(app_id, private_key),
            base_url=base_url,
            retry=self.retry,
            seconds_between_requests=None,
            seconds_between_writes=None,
        )
        self._tokens: dict[int, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def installation_token(self, installation_id: int) -> str:
        with self._lock:
            cached = self._tokens.get(installation_id)
            if cached is not None and time.time() < cached[1]:
                return cached[0]
            grant = self.integration.get_access_token(installation_id)
            expires = grant.expires_at
            until = (
                expires.timestamp() if isinstance(expires, datetime) else time.time() + 3600
            ) - TOKEN_MARGIN_S
            self._tokens[installation_id] = (grant.token, until)
            return grant.token

    def port(self, installation_id: int) -> PyGithubPort:
        return PyGithubPort(self, installation_id)


class PyGithubPort:
    """One installation's view of GitHub."""

    def __init__(self, app: AppClient, installation_id: int) -> None:
        self._app = app
        self._installation_id = installation_id
        self._client: tuple[str, Github] | None = None

    def token(self) -> str:
        return self._app.installation_token(self._installation_id)

    def _github(self) -> Github:
        token = self.token()
        if self._client is None or self._client[0] != token:
            client = Github(
                auth=Auth.Token(token),
                base_url=self._app.base_url,
                retry=self._app.retry,
                seconds_between_requests=None,
                seconds_between_writes=None,
            )
            self._client = (token, client)
        return self._client[1]

    def _call(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> dict[str, Any]:
        _headers, data = self._github().requester.requestJsonAndCheck(
            method, path, input=dict(body) if body is not None else None
        )
        return data if isinstance(data, dict) else {}

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
        body: dict[str, Any] = {"name": name, "head_sha": head_sha, "status": status}
        if external_id:
            body["external_id"] = external_id
        if details_url:
            body["details_url"] = details_url
        if status == "in_progress":
            body["started_at"] = _now()
        return int(self._call("POST", f"/repos/{repo}/check-runs", body)["id"])

    def find_check_run(self, repo: str, head_sha: str, *, name: str, external_id: str) -> int | None:
        found = self._call(
            "GET", f"/repos/{repo}/commits/{head_sha}/check-runs?check_name={quote(name)}&per_page=100"
        )
        for run in found.get("check_runs", []):
            if isinstance(run, dict) and run.get("external_id") == external_id:
                return int(run["id"])
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
        body: dict[str, Any] = {}
        if actions:
            body["actions"] = [dict(a) for a in actions]
        if status is not None:
            body["status"] = status
            if status == "in_progress":
                body["started_at"] = _now()
        if conclusion is not None:
            body["conclusion"] = conclusion
            body["completed_at"] = _now()
        if title is not None and summary is not None:
            output: dict[str, Any] = {"title": title, "summary": summary}
            if text:
                output["text"] = text
            if annotations:
                output["annotations"] = [dict(a) for a in annotations]
            body["output"] = output
        self._call("PATCH", f"/repos/{repo}/check-runs/{check_run_id}", body)

    def find_comment(self, repo: str, number: int, marker: str) -> int | None:
        comments: PaginatedList[IssueComment] = PaginatedList(
            IssueComment,
            self._github().requester,
            f"/repos/{repo}/issues/{number}/comments",
            {"per_page": 100},
        )
        for page in range(_MAX_COMMENT_PAGES):
            batch = comments.get_page(page)
            for comment in batch:
                if marker in (comment.body or "") and comment.user is not None and comment.user.type == "Bot":
                    return int(comment.id)
            if len(batch) < 100:
                break
        return None

    def create_comment(self, repo: str, number: int, body: str) -> int:
        return int(self._call("POST", f"/repos/{repo}/issues/{number}/comments", {"body": body})["id"])

    def update_comment(self, repo: str, comment_id: int, body: str) -> bool:
        try:
            self._call("PATCH", f"/repos/{repo}/issues/comments/{comment_id}", {"body": body})
        except UnknownObjectException:
            return False
        return True

    def get_pull(self, repo: str, number: int) -> PullRequestRef:
        pull = self._call("GET", f"/repos/{repo}/pulls/{number}")
        return PullRequestRef.from_pull(pull, pull["base"]["repo"])

    def list_pulls(self, repo: str, *, head_branch: str) -> list[PullInfo]:
        owner = repo.split("/", 1)[0]
        head = quote(f"{owner}:{head_branch}", safe="")
        found: list[PullInfo] = []
        for page in range(1, _MAX_COMMENT_PAGES + 1):
            _headers, data = self._github().requester.requestJsonAndCheck(
                "GET", f"/repos/{repo}/pulls?state=all&head={head}&per_page=100&page={page}"
            )
            batch = data if isinstance(data, list) else []
            found.extend(PullInfo.from_json(p) for p in batch if isinstance(p, dict))
            if len(batch) < 100:
                break
        # GitHub filters by `head` already; a server that does not is filtered here (never a fork's branch).
        return [
            p
            for p in found
            if p.head_ref == head_branch and (not p.head_repo or p.head_repo.lower() == repo.lower())
        ]

    def create_pull(self, repo: str, *, title: str, head: str, base: str, body: str) -> int:
        data = {"title": title, "head": head, "base": base, "body": body}
        return int(self._call("POST", f"/repos/{repo}/pulls", data)["number"])

    def update_pull(self, repo: str, number: int, *, title: str, body: str) -> None:
        self._call("PATCH", f"/repos/{repo}/pulls/{number}", {"title": title, "body": body})

    def add_reaction(self, repo: str, comment_id: int, content: str) -> None:
        self._call("POST", f"/repos/{repo}/issues/comments/{comment_id}/reactions", {"content": content})


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
