"""Feedback → optimization → auto-PR, offline: feedback posted over HTTP to the app, the job run by the worker,
the teacher, task model and judge answered by the loopback OpenAI fake (real `openai` SDK), the winner pushed
and opened as a pull request on the fake GitHub (real git over HTTP)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from core.campaign.prompt_source.logged_feedback import input_text, split_feedback
from github_app.feedback_store import FeedbackStore
from tests.core.campaign.conftest import git
from tests.fakes.openai_server import FakeOpenAI, RecordedRequest, judge_answer
from tests.github_app.conftest import REPO, Harness
from tests.github_app.feedback_setup import PROMPT, TASK, declare_task, issue_key, item, url

BRANCH = f"proctor/prompt/{TASK}"
PRICES = "\n[judge]\nprices = { judge-mini = [1.0, 4.0], teacher-big = [5.0, 20.0] }\n"


def kind(request: RecordedRequest) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    return str(((body.get("response_format") or {}).get("json_schema") or {}).get("name", ""))


class Models:
    """Teacher, task model and judge in one: a prompt that asks for one sentence gets good answers."""

    def __init__(self) -> None:
        self.generation = 1

    def __call__(self, request: RecordedRequest) -> str:
        what = kind(request)
        if what == "prompt_rewrites":
            rewrites = [
                {
                    "rationale": "Ask for one sentence <b>@team</b>",
                    "prompt": f"Summarize the ticket in one sentence (v{self.generation}).",
                },
                {"rationale": "Be polite", "prompt": f"Politely summarize the ticket (v{self.generation})."},
                {"rationale": "Shorter", "prompt": f"Summarize (v{self.generation})."},
            ]
            return json.dumps({"rewrites": rewrites})
        if what == "task_output":
            good = "one sentence" in request.prompt
            return json.dumps(
                {"output": "GOOD: the customer wants a refund." if good else "A long retelling of it all."}
            )
        good = "GOOD:" in request.prompt
        value = 0.9 if good else 0.3
        return judge_answer(
            {"accuracy": value, "conciseness": value - 0.1}, value, "short and right" if good else "rambles"
        )


@pytest.fixture
def models(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Models, FakeOpenAI]]:
    scripted = Models()
    with FakeOpenAI(scripted) as fake:
        monkeypatch.setenv("PROCTOR_JUDGE_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-app-only")
        yield scripted, fake


def post(h: Harness, key: str, first: int, last: int) -> None:
    for i in range(first, last + 1):
        assert h.client.post(url(), json=item(i), headers={"X-API-Key": key}).status_code == 201


def prompt_pulls(h: Harness) -> list[dict[str, Any]]:
    return [p for (repo, _n), p in h.fake.pulls.items() if repo == REPO and p["head"]["ref"] == BRANCH]


def delivered_prompt(h: Harness) -> str:
    return git(h.project.remote, "show", f"{BRANCH}:prompts/summarize.txt")


def campaign(h: Harness, batch: int) -> dict[str, Any]:
    found = h.app.store.campaign(f"prompt-octo-demo-{TASK}-{batch}")
    assert found is not None and found.status == "completed", found
    board: dict[str, Any] = json.loads(found.result)
    return board


def test_the_50th_post_optimizes_once_and_opens_then_updates_the_auto_pr(
    harness: Harness, models: tuple[Models, FakeOpenAI]
) -> None:
    scripted, fake = models
    declare_task(harness, threshold=50, extra=PRICES)
    key = issue_key(harness)
    post(harness, key, 1, 49)
    assert harness.work() == 0 and fake.chat_requests() == [], "49 items: nothing runs"
    post(harness, key, 50, 50)
    assert harness.work() == 1
    board = campaign(harness, 1)
    assert board["winner"]["ref"] == "rewrite-1" and board["winner"]["score"] == pytest.approx(0.9)
    assert board["baseline"]["score"] == pytest.approx(0.3)
    assert 0 < board["spent_usd"] <= board["budget_usd"] == 2.5
    assert board["delivery"] == "opened" and board["delivered_branch"] == BRANCH
    pulls = prompt_pulls(harness)
    assert len(pulls) == 1 and pulls[0]["base"]["ref"] == "main" and pulls[0]["state"] == "open"
    body = pulls[0]["body"]
    for expected in ("0.9000", "0.3000", "+0.6000", "Spent **$", "of $2.50", "accuracy", "conciseness"):
        assert expected in body, expected
    assert "<b>" not in body and "@team" not in body.replace("@\u200bteam", ""), "teacher text is escaped"
    assert delivered_prompt(harness) == "Summarize the ticket in one sentence (v1)."
    assert git(harness.project.remote, "rev-parse", f"{BRANCH}^").strip() == harness.project.sha("main")
    listed = harness.client.get("/api/v1/campaigns", params={"repo": REPO}).json()
    assert [(c["winner_ref"], c["spent_usd"]) for c in listed] == [("rewrite-1", board["spent_usd"])]

    # No hold-out item ever reached the teacher; search items did (the channel is real).
    items = FeedbackStore(harness.app.store.engine).upto(REPO, TASK, 50)
    split = split_feedback(items)
    teacher = "\n".join(r.prompt for r in fake.chat_requests() if kind(r) == "prompt_rewrites")
    assert teacher and split.holdout and split.search
    assert not [i.id for i in split.holdout if input_text(i.inputs)[:60] in teacher or i.output in teacher]
    assert any(i.output in teacher for i in split.search)
    judged = "\n".join(r.prompt for r in fake.chat_requests() if kind(r) == "judge_verdict")
    assert all(input_text(i.inputs)[:40] in judged for i in split.holdout), (
        "the judge scores the hold-out split"
    )

    # 50 more: the next optimization updates the same pull request.
    scripted.generation = 2
    post(harness, key, 51, 100)
    assert harness.work() == 1
    assert campaign(harness, 2)["delivery"] == "updated"
    again = prompt_pulls(harness)
    assert len(again) == 1 and again[0]["number"] == pulls[0]["number"]
    assert delivered_prompt(harness) == "Summarize the ticket in one sentence (v2)."
    assert harness.work() == 0


def test_a_spent_budget_stops_reports_the_spend_and_delivers_nothing(
    harness: Harness, models: tuple[Models, FakeOpenAI]
) -> None:
    declare_task(harness, threshold=10, budget=0.005, extra=PRICES)
    key = issue_key(harness)
    post(harness, key, 1, 10)
    assert harness.work() == 1
    board = campaign(harness, 1)
    assert board["spent_usd"] <= 0.005 and board["spent_usd"] > 0
    assert "budget" in board["stop_reason"] or "no answer (budget)" in board["stop_reason"], board[
        "stop_reason"
    ]
    assert board["winner"] is None and board["delivery"] is None
    assert prompt_pulls(harness) == []
    assert git(harness.project.remote, "branch", "--list", BRANCH).strip() == ""
    assert (harness.project.ws.root / "prompts" / "summarize.txt").read_text() == PROMPT


def test_no_rewrite_better_than_the_current_prompt_delivers_nothing(
    harness: Harness, models: tuple[Models, FakeOpenAI]
) -> None:
    declare_task(harness, threshold=5, extra=PRICES)
    harness.project.ws.write("prompts/summarize.txt", "Summarize the ticket in one sentence.\n")
    harness.project.ws.commit_all("the prompt is already good")
    harness.project.publish()
    key = issue_key(harness)
    post(harness, key, 1, 5)
    assert harness.work() == 1
    board = campaign(harness, 1)
    assert board["baseline"]["score"] == pytest.approx(0.9) and board["winner"] is None
    assert prompt_pulls(harness) == []
