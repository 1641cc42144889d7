"""A winner must beat noise: `[campaign] min_improvement` and `significance` (standard errors of the delta).

The evaluator here scores 20 items with per-item noise that differs between commits, so the paired bootstrap
gives a real standard error (about 0.04): +0.02 is within 2 SE, +0.25 is far outside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.campaign.verdict import NoiseRule, beats_baseline, is_regression
from core.cli import main
from tests.core.campaign.conftest import CONFIG, Workspace, build_workspace, git, predict

NOISY_EVALUATE = '''\
"""Trusted test evaluator: per-item scores scatter around the candidate's value (seeded by the value)."""
import json
import random
import subprocess
import sys
from pathlib import Path

out = subprocess.run([sys.executable, "solution/predict.py"], stdout=subprocess.PIPE, check=True).stdout
text = out.decode().strip().splitlines()[-1]
value = float(text)
rng = random.Random(text)
noise = [rng.uniform(-0.2, 0.2) for _ in range(20)]
mean = sum(noise) / len(noise)
items = [value + n - mean for n in noise]
Path("kapso_evaluation/result.json").write_text(json.dumps({"score": value, "per_item_scores": items}))
print(f"score: {text}")
'''


def noisy_workspace(root: Path, extra_config: str = "") -> Workspace:
    ws = build_workspace(root, config=CONFIG + extra_config)
    ws.write("kapso_evaluation/evaluate.py", NOISY_EVALUATE)
    ws.commit_all("noisy evaluator")
    return ws


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["campaign", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_a_candidate_within_two_standard_errors_is_not_a_winner_and_is_not_delivered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = noisy_workspace(tmp_path / "repo")
    ws.branch("candidate/slightly", {"solution/predict.py": predict("0.52")})
    ws.branch("candidate/worse", {"solution/predict.py": predict("0.4")})
    code, board = run_json(capsys, "--repo", str(ws.root), "--campaign-id", "n1", "--deliver")
    assert code == 0
    row = next(c for c in board["candidates"] if c["ref"] == "candidate/slightly")
    assert row["delta"] == pytest.approx(0.02)
    assert row["stderr"] is not None and row["delta"] < 2 * row["stderr"]  # within 2 SE: noise
    assert board["winner"] is None and board["delivered_branch"] is None
    assert board["within_noise"]["ref"] == "candidate/slightly"
    assert board["within_noise"]["stderr"] == pytest.approx(row["stderr"])
    assert board["noise"] == {"min_improvement": 0.0, "significance": 2.0}
    branches = git(ws.root, "branch", "--list", "proctor/delivered/*")
    assert branches.strip() == ""

    assert main(["campaign", "--repo", str(ws.root), "--resume", "--campaign-id", "n1"]) == 0
    text = capsys.readouterr().out
    assert "Winner: none (best candidate candidate/slightly" in text
    assert "within noise" in text and "> 2 SE" in text and "nothing delivered" in text
    html = (ws.root / ".proctor/campaigns/n1/report.html").read_text()
    assert "within noise" in html


def test_a_clear_improvement_wins_over_a_larger_but_noisier_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = noisy_workspace(tmp_path / "repo")
    ws.branch("candidate/clear", {"solution/predict.py": predict("0.75")})
    ws.branch("candidate/slightly", {"solution/predict.py": predict("0.52")})
    code, board = run_json(capsys, "--repo", str(ws.root), "--campaign-id", "n2", "--deliver")
    assert code == 0
    assert board["winner"]["ref"] == "candidate/clear" and board["within_noise"] is None
    assert board["delivered_branch"] == "proctor/delivered/n2"


def test_min_improvement_is_an_absolute_floor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = noisy_workspace(tmp_path / "repo", "min_improvement = 0.3\nsignificance = 0\n")
    ws.branch("candidate/clear", {"solution/predict.py": predict("0.75")})
    code, board = run_json(capsys, "--repo", str(ws.root), "--campaign-id", "n3", "--deliver")
    assert code == 0
    assert board["winner"] is None and board["delivered_branch"] is None
    assert board["within_noise"]["ref"] == "candidate/clear"
    assert board["noise"] == {"min_improvement": 0.3, "significance": 0.0}


@pytest.mark.parametrize(
    ("delta", "stderr", "direction", "rule", "expected"),
    [
        (0.0167, 0.0137, "maximize", NoiseRule(), False),  # the 1.2 SE "winner"
        (0.0300, 0.0137, "maximize", NoiseRule(), True),
        (0.0300, None, "maximize", NoiseRule(), True),  # no SE known: the threshold alone
        (0.0300, None, "maximize", NoiseRule(0.05, 2.0), False),
        (0.0, 0.0, "maximize", NoiseRule(), False),  # equal is not better
        (-0.03, 0.01, "minimize", NoiseRule(), True),  # lower is better
        (0.03, 0.01, "minimize", NoiseRule(), False),
        (None, None, "maximize", NoiseRule(), False),
        (float("nan"), None, "maximize", NoiseRule(), False),
    ],
)
def test_beats_baseline(
    delta: float | None, stderr: float | None, direction: Any, rule: NoiseRule, expected: bool
) -> None:
    assert beats_baseline(delta, stderr, direction, rule) is expected


def test_regression_is_the_mirror_rule() -> None:
    assert is_regression(-0.05, 0.01, "maximize")
    assert not is_regression(-0.015, 0.01, "maximize")  # 1.5 SE worse: noise
    assert not is_regression(-0.05, None, "maximize", tolerance=0.1)
    assert is_regression(0.05, None, "minimize")
    assert not is_regression(0.05, 0.01, "maximize")
