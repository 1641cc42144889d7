"""The app's one comment on a PR, made of named sections (the PR check's, the last campaign's).

Each job rewrites only its own section; the comment is composed from every stored section and updated in
place (found by the store, or by its hidden marker), so a campaign never posts a second comment and a
later PR check does not wipe the campaign's scoreboard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from github_app import hygiene, text

if TYPE_CHECKING:
    from github_app.port import PullRequestRef
    from github_app.router import JobContext

ORDER = ("pr", "campaign")


def compose(sections: dict[str, str]) -> str:
    parts = [sections[name] for name in ORDER if sections.get(name)]
    body = "\n\n---\n\n".join(parts)
    if not body.startswith(text.COMMENT_MARKER):
        body = f"{text.COMMENT_MARKER}\n{body}"
    return hygiene.cut(body, hygiene.COMMENT_LIMIT, "the dashboard has the rest")


def upsert_section(pr: PullRequestRef, ctx: JobContext, name: str, body: str, *, new: bool = False) -> None:
    """Store section `name`, then write the whole comment (`new`: a fresh comment, github.comment = "new")."""
    ctx.store.save_comment_section(pr.repo, pr.number, name, body)
    full = compose(ctx.store.comment_sections(pr.repo, pr.number))
    comment_id = None if new else ctx.store.comment_id(pr.repo, pr.number)
    if comment_id is None and not new:
        comment_id = ctx.gh.find_comment(pr.repo, pr.number, text.COMMENT_MARKER)
    if comment_id is not None and ctx.gh.update_comment(pr.repo, comment_id, full):
        ctx.store.save_comment_id(pr.repo, pr.number, comment_id)
        return
    ctx.store.save_comment_id(pr.repo, pr.number, ctx.gh.create_comment(pr.repo, pr.number, full))
