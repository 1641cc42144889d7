"""The App's prompt optimization decides in core, without the App: the feedback split and the winner pick run
on plain items (any object with the `LoggedFeedback` fields), and the winner is picked by the same rule a
prompt campaign picks its next parent by (`winner_over`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.campaign.model import CandidateRecord, winner_over
from core.campaign.prompt_source.logged_feedback import Measured, pick, split_feedback


@dataclass(frozen=True)
class Logged:
    id: int
    repo: str = "octo/app"
    task: str = "summarize"
    inputs: Any = "a ticket"
    output: str = "a summary"
    score: float | None = None
    source: str | None = None


def test_an_item_keeps_its_split_as_more_feedback_arrives() -> None:
    first = split_feedback([Logged(n) for n in range(1, 41)])
    later = split_feedback([Logged(n) for n in range(1, 201)])
    assert first.search and first.holdout
    assert {i.id for i in first.holdout} <= {i.id for i in later.holdout}
    assert {i.id for i in first.search} <= {i.id for i in later.search}
    assert not {i.id for i in later.search} & {i.id for i in later.holdout}


def test_two_items_always_give_both_splits_one() -> None:
    split = split_feedback([Logged(1), Logged(2)])
    assert (len(split.search), len(split.holdout)) == (1, 1)


def _measured(label: str, scores: tuple[float, ...], status: str = "scored") -> Measured:
    mean = sum(scores) / len(scores) if scores else None
    return Measured(label, f"prompt {label}", status, mean if status == "scored" else None, scores)


def test_the_winner_beats_the_current_prompt_beyond_noise() -> None:
    current = _measured("current", (0.2, 0.3, 0.25, 0.3))
    same = _measured("rewrite-1", (0.2, 0.3, 0.25, 0.3))
    better = _measured("rewrite-2", (0.8, 0.9, 0.85, 0.9))
    winner, deltas = pick(current, [same, better])
    assert winner == 1
    assert deltas[0][0] == 0.0 and deltas[1][0] is not None and deltas[1][0] > 0.5


def test_no_winner_when_the_current_prompt_could_not_be_measured() -> None:
    current = _measured("current", (), status="failed")
    winner, deltas = pick(current, [_measured("rewrite-1", (0.9, 0.9))])
    assert winner is None
    assert deltas == ((None, None),)


def test_the_campaign_and_the_app_share_one_winner_rule() -> None:
    """A rewrite within noise of the baseline is never the winner, for either caller."""
    baseline = CandidateRecord(0, "main", "c0", "", "scored", score=0.5, per_item_scores=(0.5, 0.5, 0.5))
    noisy = CandidateRecord(1, "r1", "c1", "main", "scored", score=0.5001, per_item_scores=(0.5, 0.5, 0.5003))
    assert winner_over(baseline, [noisy], "maximize")[0] is None
    assert pick(_measured("current", (0.5, 0.5, 0.5)), [_measured("r1", (0.5, 0.5, 0.5003))])[0] is None
