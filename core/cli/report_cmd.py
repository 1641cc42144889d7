"""`proctor report`: the trend of every campaign in a repository as one HTML page, or one campaign's report.

Exit codes: 0 written (also when the repository has no campaign yet: the page says so), 2 a bad repository,
campaign id or output path (handled centrally for ProctorError).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def report(
    repo: Annotated[Path, typer.Option("--repo", help="The git repository whose campaigns to show.")] = Path(
        "."
    ),
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", help="Where to write the page (default .proctor/report.html, or the campaign's)."
        ),
    ] = None,
    campaign_id: Annotated[
        str | None,
        typer.Option("--campaign", help="Render this campaign's own report again instead of the trend."),
    ] = None,
) -> None:
    """Write the HTML trend of every campaign's best score (one line per evaluator version)."""
    from core import __version__
    from core.campaign.report.facts import CAMPAIGNS_DIR, load_trend
    from core.errors import CampaignError, GitError
    from core.integrity.git import run_git
    from core.state_root import proctor_dir

    if not repo.is_dir():
        raise CampaignError(f"repository {str(repo)!r} does not exist", path=repo)
    try:
        root = Path(run_git(repo, "rev-parse", "--show-toplevel").strip()).resolve()
    except GitError:
        raise CampaignError(
            f"{str(repo)!r} is not a git repository (campaigns live in one)", path=repo
        ) from None
    if campaign_id is not None:
        from core.campaign.engine import load_result
        from core.campaign.report.render import render_html

        result = load_result(root, campaign_id)
        target = output or result.report_path
        _write(target, render_html(result))
        typer.echo(f"Report: {target}")
        return
    from core.campaign.report.html import render_trend_page

    points = load_trend(root)
    target = output or proctor_dir(root) / "report.html"
    _write(target, render_trend_page(points, str(root), __version__))
    where = proctor_dir(root) / CAMPAIGNS_DIR.name
    found = (
        f"{len(points)} campaign{'' if len(points) == 1 else 's'}" if points else f"no campaign under {where}"
    )
    typer.echo(f"Report: {target} ({found})")


def _write(target: Path, text: str) -> None:
    from core.atomic import atomic_write_text
    from core.errors import CampaignError

    try:
        atomic_write_text(target, text)
    except OSError as exc:
        raise CampaignError(
            f"cannot write the report to {str(target)!r}: {exc.strerror or exc}", path=target
        ) from None
