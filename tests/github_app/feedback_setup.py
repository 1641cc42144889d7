"""A repository with a `[[prompt_task]]` on its default branch, and a feedback key for it (shared by the
feedback API tests and the prompt optimization tests)."""

from __future__ import annotations

import contextlib
import io
import os
from typing import Any
from unittest import mock

from github_app.__main__ import keys_main
from tests.github_app.conftest import REPO, Harness

TASK = "summarize_ticket"
PROMPT = "Summarize the support ticket.\n"


def task_config(threshold: int = 50, budget: float = 2.5, extra: str = "") -> str:
    return f"""
[[prompt_task]]
name = "{TASK}"
prompt_file = "prompts/summarize.txt"
description = "Summarize support tickets into one or two sentences"
criteria = "accuracy, conciseness"
scale = "0-1"
feedback_threshold = {threshold}
judge_model = "judge-mini"
teacher_model = "teacher-big"
budget_usd = {budget}
{extra}"""


def declare_task(h: Harness, threshold: int = 50, budget: float = 2.5, extra: str = "") -> None:
    """Add the task (and its prompt file) to the default branch and publish it."""
    ws = h.project.ws
    config = (ws.root / "proctor.toml").read_text("utf-8")
    ws.write("proctor.toml", config + task_config(threshold, budget, extra))
    ws.write("prompts/summarize.txt", PROMPT)
    ws.commit_all("declare the summarize_ticket prompt task")
    h.project.publish()


def issue_key(h: Harness, repo: str = REPO) -> str:
    """`proctor-app keys create` as an admin runs it, with the app's environment."""
    out = io.StringIO()
    with mock.patch.dict(os.environ, h.env), contextlib.redirect_stdout(out):
        code = keys_main(["create", repo, "--installation", "7", "--clone-url", h.fake.clone_url(repo)])
    assert code == 0
    key = out.getvalue().strip()
    assert key.startswith("pfk_")
    return key


def url(task: str = TASK, repo: str = REPO) -> str:
    return f"/api/v1/tasks/{repo}/{task}/feedback"


def item(i: int) -> dict[str, Any]:
    return {
        "inputs": {"ticket": f"Ticket {i}: my order #{1000 + i} arrived broken, I want a refund."},
        "output": f"Customer {i} wants a refund for a broken order.",
        "score": (i % 5) / 4,
        "source": "support-agent",
    }
