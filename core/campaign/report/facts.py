"""What the report reads at render time: candidates' commit messages and diff stats (git), other campaigns.

Everything goes through core's hardened git (core/integrity/git.py): the repository and its candidates are
not trusted, so no hooks, no external diff drivers, no textconv. A failure costs the report a detail, never the
report: it is written at the end of every campaign.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from core.campaign.report.model import (
    MAX_FILES,
    MESSAGE_CHARS,
    ChangedFile,
    CommitFacts,
    TrendPoint,
    trend_point,
)
from core.errors import GitError
from core.integrity.git import batch_check, is_object_id, run_git_bytes
from core.state_root import proctor_dir

CAMPAIGNS_DIR = Path(".proctor") / "campaigns"
_BOARD_LIMIT = 32 * 1024 * 1024


def commit_facts(repo: Path, baseline: str | None, commits: Iterable[str]) -> dict[str, CommitFacts]:
    """Message and files changed against `baseline` for each commit (full shas only; others skipped)."""
    wanted = sorted({c for c in commits if is_object_id(c)})
    if not wanted:
        return {}
    try:
        asked = [*wanted, *([baseline] if baseline and is_object_id(baseline) else [])]
        present = {info.spec for info in batch_check(repo, asked) if info.type == "commit"}
    except GitError as exc:
        return {sha: CommitFacts(error=str(exc)) for sha in wanted}
    gone = CommitFacts(error="the commit is no longer in the repository")
    shas = [sha for sha in wanted if sha in present]
    messages = _messages(repo, shas) if shas else {}
    against = [sha for sha in shas if baseline in present and sha != baseline]
    stats, error = _diff_stats(repo, str(baseline), against) if against else ({}, "")
    facts = {}
    for sha in shas:
        files = stats.get(sha, [])
        cut = tuple(files[:MAX_FILES])
        facts[sha] = CommitFacts(
            messages.get(sha, ""), cut, len(files) - len(cut), error if sha in against else ""
        )
    return {**{sha: gone for sha in wanted if sha not in present}, **facts}


def _messages(repo: Path, shas: list[str]) -> dict[str, str]:
    """All messages in one `git log --no-walk` (NUL-separated records: sha, then the raw body)."""
    try:
        out = run_git_bytes(repo, "log", "--no-walk=unsorted", "-z", "--format=%H%n%B", *shas)
    except GitError:
        return {}
    found = {}
    for record in out.decode("utf-8", "replace").split("\0"):
        sha, _, body = record.partition("\n")
        if is_object_id(sha):
            text = body.strip()
            found[sha] = text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + "…"
    return found


def _diff_stats(repo: Path, baseline: str, shas: list[str]) -> tuple[dict[str, list[ChangedFile]], str]:
    """Every commit's numstat against the baseline from one `git diff-tree --stdin` ("<commit> <base>" lines).

    With -z a commit's id comes alone, then one `added TAB deleted TAB path` record per file (none when
    nothing differs); binary files count "-".
    """
    lines = "".join(f"{sha} {baseline}\n" for sha in shas).encode()
    try:
        out = run_git_bytes(
            repo, "diff-tree", "--stdin", "-r", "-z", "--numstat", "--no-renames", "--no-ext-diff", "--no-textconv",
            input=lines,
        )  # fmt: skip
    except GitError as exc:
        return {}, str(exc)
    stats: dict[str, list[ChangedFile]] = {sha: [] for sha in shas}
    current: list[ChangedFile] | None = None
    for token in out.decode("utf-8", "replace").split("\0"):
        if "\t" not in token:
            current = stats.get(token.strip()) if token.strip() else current
            continue
        added, _, rest = token.partition("\t")
        deleted, _, path = rest.partition("\t")
        if current is not None and path:
            current.append(ChangedFile(path, _count(added), _count(deleted)))
    return stats, ""


def _count(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def load_trend(repo: Path, extra: Iterable[TrendPoint] = ()) -> list[TrendPoint]:
    """The best score of every campaign under `repo/.proctor/campaigns`, plus `extra` (which wins on id)."""
    points: dict[str, TrendPoint] = {}
    root = proctor_dir(repo) / CAMPAIGNS_DIR.name
    if root.is_dir():
        for board_path in sorted(root.glob("*/scoreboard.json")):
            point = _read_point(board_path)
            if point is not None:
                points[point.campaign_id] = point
    for point in extra:
        points[point.campaign_id] = point
    return sorted(points.values(), key=lambda p: (p.when, p.campaign_id))


def _read_point(board_path: Path) -> TrendPoint | None:
    try:
        if board_path.is_symlink() or board_path.stat().st_size > _BOARD_LIMIT:
            return None
        board = json.loads(board_path.read_text(encoding="utf-8"), parse_constant=lambda _c: None)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(board, Mapping):
        return None
    return trend_point(board, campaign_time(board_path.parent))


def campaign_time(directory: Path) -> str:
    """When a campaign ran: its checkpoint's finish (or creation) time, else the scoreboard's mtime."""
    try:
        state = json.loads((directory / "state.json").read_text(encoding="utf-8"))
        when = str(state.get("finished_at") or state.get("created_at") or "")
        if when:
            datetime.fromisoformat(when)
            return when
    except (OSError, UnicodeDecodeError, ValueError, AttributeError, RecursionError):
        pass
    try:
        mtime = (directory / "scoreboard.json").stat().st_mtime
    except OSError:
        return ""
    return datetime.fromtimestamp(mtime, UTC).isoformat() if math.isfinite(mtime) else ""
