"""What the app keeps per pull request: its check runs, its one comment (and the comment's sections), the
base scores it compared against, and the approvals and accepted suites a maintainer gave it.

Check runs are keyed by the work they score — (repo, PR, head, base, config key) — so the same work is never
done twice and a job restarted after a kill -9 reuses its check run instead of leaving one `in_progress`
forever.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from github_app.store.database import StoreBase
from github_app.store.models import (
    AcceptedSuiteRow,
    ApprovalRow,
    BaseScoreRow,
    CheckRunRow,
    CommentRow,
    CommentSectionRow,
)

__all__ = ["CheckRun", "PullRequestState"]


@dataclass(frozen=True)
class CheckRun:
    work_key: str
    repo: str
    pr_number: int
    head_sha: str
    check_run_id: int | None
    status: str
    conclusion: str
    result: str


def _check_run(row: CheckRunRow) -> CheckRun:
    return CheckRun(
        row.work_key,
        row.repo,
        row.pr_number,
        row.head_sha,
        row.check_run_id,
        row.status,
        row.conclusion,
        row.result,
    )


class PullRequestState(StoreBase):
    """Reads and writes of the per-PR tables."""

    # -- check runs

    def check_run(self, work_key: str) -> CheckRun | None:
        with self._session() as session:
            row = session.scalars(select(CheckRunRow).where(CheckRunRow.work_key == work_key)).first()
            return _check_run(row) if row is not None else None

    def save_check_run(
        self, work_key: str, repo: str, pr_number: int, head_sha: str, base_sha: str, **values: Any
    ) -> None:
        with self._session() as session:
            row = session.scalars(select(CheckRunRow).where(CheckRunRow.work_key == work_key)).first()
            if row is None:
                row = CheckRunRow(
                    work_key=work_key, repo=repo, pr_number=pr_number, head_sha=head_sha, base_sha=base_sha
                )
                session.add(row)
            for name, value in values.items():
                setattr(row, name, value)

    def open_check_runs(self, repo: str, pr_number: int) -> list[CheckRun]:
        """Check runs of this PR that were not completed (queued or in progress, maybe from a dead job)."""
        with self._session() as session:
            rows = session.scalars(
                select(CheckRunRow).where(
                    CheckRunRow.repo == repo,
                    CheckRunRow.pr_number == pr_number,
                    CheckRunRow.status != "completed",
                )
            )
            return [_check_run(row) for row in rows]

    def recent_check_runs(self, limit: int = 100) -> list[CheckRun]:
        with self._session() as session:
            rows = session.scalars(select(CheckRunRow).order_by(CheckRunRow.id.desc()).limit(limit))
            return [_check_run(row) for row in rows]

    def forget_work(self, work_key: str) -> None:
        """An explicit re-run (`/proctor run`): the same work may be done again, under a new check run."""
        with self._session() as session:
            row = session.scalars(select(CheckRunRow).where(CheckRunRow.work_key == work_key)).first()
            if row is not None and row.status == "completed":
                session.delete(row)

    # -- the one PR comment and its sections

    def comment_id(self, repo: str, pr_number: int) -> int | None:
        with self._session() as session:
            row = session.get(CommentRow, (repo, pr_number))
            return row.comment_id if row is not None else None

    def save_comment_id(self, repo: str, pr_number: int, comment_id: int) -> None:
        with self._session() as session:
            session.merge(CommentRow(repo=repo, pr_number=pr_number, comment_id=comment_id))

    def save_comment_section(self, repo: str, pr_number: int, name: str, body: str) -> None:
        with self._session() as session:
            session.merge(CommentSectionRow(repo=repo, pr_number=pr_number, name=name, body=body))

    def comment_sections(self, repo: str, pr_number: int) -> dict[str, str]:
        with self._session() as session:
            rows = session.scalars(
                select(CommentSectionRow).where(
                    CommentSectionRow.repo == repo, CommentSectionRow.pr_number == pr_number
                )
            )
            return {row.name: row.body for row in rows}

    # -- base scores, approvals, accepted suites

    def base_score(self, repo: str, base_sha: str, evaluator_id: str) -> dict[str, Any] | None:
        with self._session() as session:
            row = session.get(BaseScoreRow, (repo, base_sha, evaluator_id))
            return json.loads(row.record) if row is not None else None

    def save_base_score(self, repo: str, base_sha: str, evaluator_id: str, record: Mapping[str, Any]) -> None:
        with self._session() as session:
            session.merge(
                BaseScoreRow(
                    repo=repo, base_sha=base_sha, evaluator_id=evaluator_id, record=json.dumps(record)
                )
            )

    def approve(self, repo: str, pr_number: int, head_sha: str, by: str) -> None:
        with self._session() as session:
            session.merge(ApprovalRow(repo=repo, pr_number=pr_number, head_sha=head_sha, approved_by=by))

    def approved(self, repo: str, pr_number: int, head_sha: str) -> bool:
        with self._session() as session:
            return session.get(ApprovalRow, (repo, pr_number, head_sha)) is not None

    def accept_suite(self, repo: str, pr_number: int, evaluator_id: str, version: int) -> None:
        with self._session() as session:
            session.merge(
                AcceptedSuiteRow(repo=repo, pr_number=pr_number, evaluator_id=evaluator_id, version=version)
            )

    def accepted_suites(self, repo: str, pr_number: int) -> dict[str, int]:
        with self._session() as session:
            rows = session.scalars(
                select(AcceptedSuiteRow).where(
                    AcceptedSuiteRow.repo == repo, AcceptedSuiteRow.pr_number == pr_number
                )
            )
            return {row.evaluator_id: row.version for row in rows}
