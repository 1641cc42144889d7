"""Pure pieces of the campaign commands: parsing, progress throttling, the comment's sections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.campaign import ProgressEvent
from github_app import campaign_job, commands, text
from github_app.comment import compose
from github_app.port import PullRequestRef
from github_app.router import JobContext
from github_app.store import Store
from tests.github_app.fake_gh import FakeGH

PR = PullRequestRef("octo/demo", 5, "a" * 40, "b" * 40, "octo/demo", "u", "u", "feature")


@pytest.mark.parametrize(
    ("body", "parsed"),
    [
        ("/proctor campaign", ("campaign", ())),
        ("/proctor campaign 3\nplease", ("campaign", ("3",))),
        ("  /proctor deliver  ", ("deliver", ())),
        ("/proctor", ("", ())),
        ("please /proctor run", None),
        ("/proctorrun", None),
        ("", None),
    ],
)
def test_parse(body: str, parsed: tuple[str, tuple[str, ...]] | None) -> None:
    assert commands.parse(body) == parsed


def _event(done: int) -> ProgressEvent:
    return ProgressEvent("finished", "c", total=4, done=done, running=1, scored=done, rejected=0, failed=0)


def test_progress_is_posted_at_most_every_few_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(campaign_job.time, "monotonic", lambda: clock[0])
    gh = FakeGH()
    ctx = JobContext(gh, Store(f"sqlite:///{tmp_path / 's.db'}"), tmp_path, 1)
    progress = campaign_job._Progress(PR, ctx, 42)
    for done in (1, 2, 3):
        progress(_event(done))
    assert [p["title"] for p in gh.patches] == ["1 of 4 candidates measured"]
    clock[0] += campaign_job.PROGRESS_INTERVAL_S
    progress(_event(4))
    assert [p["title"] for p in gh.patches][-1] == "4 of 4 candidates measured"
    assert "4 scored" in str(gh.patches[-1]["summary"])


def test_progress_survives_github_being_down(tmp_path: Path) -> None:
    class Down(FakeGH):
        def update_check_run(self, *args: Any, **kwargs: Any) -> None:
            raise ConnectionError("GitHub is down")

    ctx = JobContext(Down(), Store(f"sqlite:///{tmp_path / 's.db'}"), tmp_path, 1)
    campaign_job._Progress(PR, ctx, 42)(_event(1))  # logged, not raised


def test_the_comment_keeps_every_section_in_order() -> None:
    body = compose({"campaign": "### Proctor campaign\n\nboard", "pr": f"{text.COMMENT_MARKER}\n### Proctor"})
    assert body.startswith(text.COMMENT_MARKER)
    assert body.index("### Proctor\n") < body.index("### Proctor campaign")
    alone = compose({"campaign": "### Proctor campaign"})
    assert alone.startswith(text.COMMENT_MARKER)  # found again by its marker before any PR check ran


def test_buttons_are_within_github_limits() -> None:
    assert len(text.CAMPAIGN_ACTIONS) <= 3
    for action in text.CAMPAIGN_ACTIONS:
        assert len(action["label"]) <= 20 and len(action["identifier"]) <= 20
        assert len(action["description"]) <= 40
        assert text.ACTION_COMMANDS[action["identifier"]] in commands.COMMANDS
