"""Check-run conclusion and title exactly as the README's "Check run outcome", and output hygiene (pure)."""

from __future__ import annotations

import pytest

from core.campaign.model import CandidateRecord, FindingRecord
from core.config import GithubConfig
from core.registry import EvaluatorRef
from github_app import hygiene
from github_app.outcome import Measured, decide, number

EV = EvaluatorRef(1, "a" * 64, "provided")


def measured(head: CandidateRecord, base_score: float | None = 0.8, stderr: float | None = None) -> Measured:
    base = CandidateRecord(
        0, "base", "b" * 40, "", "scored" if base_score is not None else "failed", base_score, "auc"
    )
    delta = head.score - base_score if head.score is not None and base_score is not None else None
    return Measured(base, head, "auc", "maximize", EV, EV, "namespace via bwrap", True, (), delta, stderr)


def scored(value: float) -> CandidateRecord:
    return CandidateRecord(1, "head", "c" * 40, "base", "scored", value, "auc")


REJECTED = CandidateRecord(
    1,
    "head",
    "c" * 40,
    "base",
    "rejected",
    findings=(
        FindingRecord("IN001", "reject", "kapso_evaluation/evaluate.py", "content changed"),
        FindingRecord("IN005", "reject", "kapso_evaluation/x.py", "new"),
    ),
)
FAILED = CandidateRecord(1, "head", "c" * 40, "base", "failed", reason="timed out after 600.0 s")


@pytest.mark.parametrize(
    ("policy", "head", "stderr", "conclusion"),
    [
        ("regression", scored(0.8123), 0.004, "success"),
        ("regression", scored(0.79), None, "failure"),
        ("regression", scored(0.79), 0.01, "success"),  # 0.01 worse is within 2 SE of 0.01
        ("regression", scored(0.77), 0.01, "failure"),
        ("regression", REJECTED, None, "failure"),
        ("regression", FAILED, None, "failure"),
        ("rejected-only", scored(0.5), None, "success"),
        ("rejected-only", REJECTED, None, "failure"),
        ("rejected-only", FAILED, None, "neutral"),
        ("never", REJECTED, None, "neutral"),
        ("never", scored(0.9), None, "neutral"),
    ],
)
def test_conclusions(policy: str, head: CandidateRecord, stderr: float | None, conclusion: str) -> None:
    config = GithubConfig.model_validate({"conclusion": policy})
    assert decide(measured(head, stderr=stderr), config)[0] == conclusion


def test_titles() -> None:
    config = GithubConfig()
    assert (
        decide(measured(scored(0.8123), stderr=0.004), config)[1] == "auc 0.8123 (+0.0123 ± 0.0040 vs base)"
    )
    assert decide(measured(scored(0.9)), config)[1] == "auc 0.9000 (+0.1000 vs base)"
    assert (
        decide(measured(REJECTED), config)[1]
        == "rejected: IN001 kapso_evaluation/evaluate.py changed +1 more"
    )
    assert decide(measured(FAILED), config)[1] == "failed: timed out after 600.0 s"
    assert decide(measured(scored(0.9), base_score=None), config) == (
        "neutral",
        "auc 0.9000 (base failed: not comparable)",
    )


def test_tolerance_and_small_numbers() -> None:
    config = GithubConfig.model_validate({"regression_tolerance": 0.05})
    assert decide(measured(scored(0.76)), config)[0] == "success"
    assert decide(measured(scored(0.74)), config)[0] == "failure"
    assert number(0.00001234) == "0.000012"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("@octocat", "@\u200boctocat"),
        ("fixes #12", "fixes \\#\u200b12"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert\\(1\\)&gt;"),
        ("a|b", "a\\|b"),
        ("see octo/demo#7 and GH-9", "see octo/demo\\#\u200b7 and GH\u200b\\-9"),
        ("[link](http://evil)", "\\[link\\]\\(http://evil\\)"),
    ],
)
def test_inline_hygiene(raw: str, shown: str) -> None:
    assert hygiene.inline(raw) == shown


def test_limits_and_code_fences() -> None:
    assert len(hygiene.plain("x" * 1000)) == hygiene.TITLE_LIMIT
    cut = hygiene.cut("y" * 70_000, hygiene.COMMENT_LIMIT, "the full report is at http://app")
    assert len(cut) == hygiene.COMMENT_LIMIT and cut.endswith("the full report is at http://app)")
    block = hygiene.code_block("``` @octocat\n")
    assert block.startswith("````text\n") and block.endswith("\n````")
