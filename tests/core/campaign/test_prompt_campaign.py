"""The `prompt` candidate source end to end: the example workspace (examples/prompt), its real evaluator, and
the loopback fake OpenAI server answering as teacher, task model and judge through the example's scripted
endpoint logic (examples/prompt/local_endpoint.py). No SDK is mocked."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from core.campaign import ProgressEvent, run_campaign
from core.cli import main
from tests.core.campaign.conftest import comparable, git, scoreboard
from tests.fakes.openai_server import FakeOpenAI, RecordedRequest, Reply

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "prompt"
PROMPT = "prompts/summarize.txt"


def _load_endpoint() -> ModuleType:
    spec = importlib.util.spec_from_file_location("prompt_local_endpoint", EXAMPLE / "local_endpoint.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


local = _load_endpoint()
HOLDOUT = [
    json.loads(line)
    for line in (EXAMPLE / "kapso_datasets" / "tickets.jsonl").read_text(encoding="utf-8").splitlines()
    if json.loads(line)["split"] == "holdout"
]


def kind(request: RecordedRequest) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    fmt = body.get("response_format") or {}
    return str((fmt.get("json_schema") or {}).get("name", ""))


def build(root: Path, base_url: str, *, judge: str = "") -> Path:
    """The example as a git repository whose [judge] points at the fake (optionally with `judge` replacing
    the section's settings after base_url)."""
    shutil.copytree(
        EXAMPLE, root, ignore=shutil.ignore_patterns("run_demo.py", "local_endpoint.py", "__pycache__")
    )
    config = root / "proctor.toml"
    text = re.sub(r'(?m)^base_url = "[^"]*"', f'base_url = "{base_url}"', config.read_text(), count=1)
    if judge:
        text = re.split(r"(?m)^\[judge\]$", text)[0] + "[judge]\n" + f'base_url = "{base_url}"\n' + judge
    config.write_text(text)
    (root / ".gitignore").write_text(".proctor/\n__pycache__/\n")
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", "baseline")
    return root


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "PROCTOR_JUDGE_BASE_URL", "PROCTOR_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proctor-only")


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeOpenAI]]:
    started: list[FakeOpenAI] = []

    def start(responder: Callable[[RecordedRequest], Any]) -> FakeOpenAI:
        fake = FakeOpenAI(responder).start()
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.stop()


def scripted(request: RecordedRequest) -> str:
    return str(local.answer(request.body))


def test_prompt_campaign_end_to_end(
    tmp_path: Path, serve: Callable[..., FakeOpenAI], capsys: pytest.CaptureFixture[str]
) -> None:
    fake = serve(scripted)
    repo = build(tmp_path / "repo", fake.base_url)
    args = ["campaign", "--repo", str(repo), "--format", "json", "--campaign-id", "p"]
    code = main([*args, "--prompt", PROMPT, "--iterations", "2", "--rewrites", "2", "--deliver"])
    board = json.loads(capsys.readouterr().out)
    assert code == 0
    rows = board["candidates"]
    assert [c["ref"] for c in rows] == [f"refs/proctor/generated/p/{n}" for n in range(1, 5)]
    assert [c["status"] for c in rows] == ["scored"] * 4
    scores = [c["score"] for c in rows]
    # Within each iteration the more specific rewrite wins, and every one beats the baseline.
    assert board["baseline"]["score"] < scores[0] < scores[1] < scores[2] < scores[3]
    assert all(c["stderr"] is not None for c in rows)  # per-item scores from the evaluator's result.json
    assert board["winner"]["ref"] == "refs/proctor/generated/p/4"
    assert board["delivered_branch"] == "proctor/delivered/p"
    assert git(repo, "rev-parse", "proctor/delivered/p").strip() == rows[3]["commit"]

    # Each candidate is one commit on top of its parent (the baseline, then the best of iteration 1) that
    # changes only the prompt file, to the teacher's rewrite.
    baseline = git(repo, "rev-parse", "main").strip()
    parents = [baseline, baseline, rows[1]["commit"], rows[1]["commit"]]
    for row, parent, rung in zip(rows, parents, local.LADDER[1:5], strict=True):
        assert git(repo, "rev-parse", f"{row['commit']}^").strip() == parent
        assert git(repo, "diff", "--name-only", parent, row["commit"]).split() == [PROMPT]
        assert git(repo, "show", f"{row['commit']}:{PROMPT}") == rung + "\n"
        assert git(repo, "rev-parse", row["ref"]).strip() == row["commit"]

    requests = fake.chat_requests()
    teacher = [r for r in requests if kind(r) == "prompt_rewrites"]
    evaluator = [r for r in requests if kind(r) in ("task_output", "judge_verdict")]
    assert len(teacher) == 2 and all(r.model == "local-teacher" for r in teacher)
    # The teacher gets the brief's Goal and the judge's feedback on the search split — never a hold-out ticket.
    assert "triage engineer" in teacher[0].last_user
    assert "Low-scoring example 'S" in teacher[1].last_user
    for request in teacher:
        for row in HOLDOUT:
            assert f"'{row['id']}'" not in request.last_user
            assert row["input"] not in request.prompt and row["reference"] not in request.prompt
    # Proctor's key reaches the teacher directly, and the evaluator's calls only through Proctor's judge proxy,
    # which adds it: the evaluator's sandbox holds the proxy's token, never the key (tests/core/judge/test_proxy.py).
    assert all(r.headers["authorization"] == "Bearer sk-proctor-only" for r in teacher)
    assert all(r.headers["user-agent"].startswith("OpenAI/") for r in teacher)
    assert evaluator and all(r.headers["authorization"] == "Bearer sk-proctor-only" for r in evaluator)
    assert all(r.headers["user-agent"].startswith("python-httpx/") for r in evaluator)

    state = json.loads((repo / ".proctor/campaigns/p/state.json").read_text())
    assert state["fingerprint"]["candidate_source"]["kind"] == "prompt"
    assert state["sandbox"].startswith("namespace")  # prompt campaigns no longer need the `process` level
    assert set(state["prompt"]["feedback"]) == {"0", "1", "2", "3", "4"}

    # Resume: nothing is proposed or measured again; a changed prompt source is refused.
    before = len(fake.chat_requests())
    assert main([*args, "--resume"]) == 0
    assert comparable(json.loads(capsys.readouterr().out)) == comparable(board)
    assert len(fake.chat_requests()) == before
    assert main([*args, "--resume", "--prompt", PROMPT, "--iterations", "2", "--rewrites", "3"]) == 2
    assert "the candidate source" in capsys.readouterr().err


def test_resume_after_interruption_neither_reproposes_nor_reruns(
    tmp_path: Path, serve: Callable[..., FakeOpenAI]
) -> None:
    fake = serve(scripted)
    repo = build(tmp_path / "repo", fake.base_url)

    class Interrupted(Exception):
        pass

    def stop_in_iteration_two(event: ProgressEvent) -> None:
        if event.kind == "finished" and event.record is not None and event.record.index >= 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        run_campaign(
            repo,
            prompt_file=PROMPT,
            iterations=2,
            rewrites=2,
            campaign_id="r",
            progress=stop_in_iteration_two,
        )
    state = json.loads((repo / ".proctor/campaigns/r/state.json").read_text())
    finished = {r["index"]: r for r in state["records"]}
    assert len(finished) == 3 and {p["index"] for p in state["planned"]} == {1, 2, 3, 4}
    teacher_calls = len([r for r in fake.chat_requests() if kind(r) == "prompt_rewrites"])
    assert teacher_calls == 2

    result = run_campaign(repo, resume=True, campaign_id="r")
    assert len([r for r in fake.chat_requests() if kind(r) == "prompt_rewrites"]) == teacher_calls
    assert [r.status for r in result.candidates] == ["scored"] * 4
    for record in result.candidates:
        if record.index in finished:  # not measured again: the very same record
            assert record.duration_s == finished[record.index]["duration_s"]
    assert result.winner is not None and result.winner.index == 4
    assert scoreboard(repo, "r")["winner"] is not None


def test_malformed_teacher_output_fails_the_iteration_with_a_reason(
    tmp_path: Path, serve: Callable[..., FakeOpenAI], capsys: pytest.CaptureFixture[str]
) -> None:
    def responder(request: RecordedRequest) -> str:
        if kind(request) == "prompt_rewrites":
            return "Here are some ideas: make it shorter, maybe mention the customer."
        return scripted(request)

    fake = serve(responder)
    repo = build(tmp_path / "repo", fake.base_url)
    args = ["campaign", "--repo", str(repo), "--format", "json", "--campaign-id", "m"]
    code = main([*args, "--prompt", PROMPT, "--iterations", "1", "--rewrites", "2"])
    board = json.loads(capsys.readouterr().out)
    assert code == 1  # nothing could be scored, but the campaign finished
    assert [(c["status"], c["commit"]) for c in board["candidates"]] == [("failed", None)] * 2
    assert board["baseline"]["score"] is not None and board["winner"] is None
    state = json.loads((repo / ".proctor/campaigns/m/state.json").read_text())
    assert state["complete"] is True
    for record in state["records"]:
        assert "iteration 1: no rewrite from the teacher" in record["reason"]
        assert "the teacher's answer could not be used: no JSON object found" in record["reason"]
    # Three rounds, each with one repair retry; then the iteration is given up, not the campaign.
    assert len([r for r in fake.chat_requests() if kind(r) == "prompt_rewrites"]) == 6


def test_budget_exhaustion_stops_new_proposals(
    tmp_path: Path, serve: Callable[..., FakeOpenAI], capsys: pytest.CaptureFixture[str]
) -> None:
    def responder(request: RecordedRequest) -> Reply | str:
        if kind(request) == "prompt_rewrites":  # an expensive teacher: $1 per answer at $1 per 1M tokens
            return Reply(content=scripted(request), usage=(1_000_000, 0))
        return scripted(request)

    fake = serve(responder)
    judge = (
        'model = "local-task-judge"\nteacher_model = "local-teacher"\nbudget_usd = 0.5\n'
        'prices = {"local-task-judge" = [0.0, 0.0], "local-teacher" = [1.0, 1.0]}\n'
    )
    repo = build(tmp_path / "repo", fake.base_url, judge=judge)
    args = ["campaign", "--repo", str(repo), "--format", "json", "--campaign-id", "b"]
    code = main([*args, "--prompt", PROMPT, "--iterations", "3", "--rewrites", "2"])
    board = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [c["status"] for c in board["candidates"]] == ["scored", "scored"]
    assert len([r for r in fake.chat_requests() if kind(r) == "prompt_rewrites"]) == 1
    notes = json.loads((repo / ".proctor/campaigns/b/state.json").read_text())["notes"]
    assert any("judge budget ran out before the teacher could answer iteration 2" in n for n in notes)
    assert any("$1.0000 of the $0.50 budget" in n for n in notes)
    assert main(["campaign", "--repo", str(repo), "--campaign-id", "b", "--resume"]) == 0
    assert "no new proposals" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--prompt", "prompts/missing.txt", "--iterations", "1"], "is not in the baseline commit"),
        (["--prompt", "brief.md", "--iterations", "1"], "is protected"),
        (["--prompt", "kapso_evaluation/evaluate.py", "--iterations", "1"], "is protected"),
        (["--prompt", PROMPT], "needs --iterations"),
        (["--rewrites", "2"], "need --prompt FILE"),
    ],
)
def test_bad_prompt_campaigns_are_refused_before_anything_runs(
    tmp_path: Path,
    serve: Callable[..., FakeOpenAI],
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    fake = serve(scripted)
    repo = build(tmp_path / "repo", fake.base_url)
    assert main(["campaign", "--repo", str(repo), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert fake.chat_requests() == []
    assert not (repo / ".proctor" / "campaigns").exists() or not any((repo / ".proctor/campaigns").iterdir())


def test_the_standalone_local_endpoint_serves_teacher_task_and_judge(tmp_path: Path) -> None:
    """`local_endpoint.py` as a user runs it (its own HTTP server), through the real openai SDK."""
    from dataclasses import replace

    from core.campaign.prompt_source import run_prompt
    from core.judge import Item, Judge, JudgeSettings, judge_outputs, propose_rewrites

    with local.LocalEndpoint() as endpoint:
        settings = JudgeSettings(
            model="local-task-judge",
            teacher_model="local-teacher",
            base_url=endpoint.base_url,
            free=True,
            cache_path=None,
            timeout_s=5.0,
        )
        with Judge.open(replace(settings, cache_path=None), use_cache=False) as judge:
            proposals = propose_rewrites(local.LADDER[0], task="summaries", feedback="", count=2, judge=judge)
            assert [r.prompt for r in proposals.rewrites] == list(local.LADDER[1:3])
            ticket = HOLDOUT[0]
            loose, tight = (
                run_prompt(judge, p, [ticket["input"]])[0] for p in (local.LADDER[0], local.LADDER[4])
            )
            assert (
                loose.output == ticket["input"]
                and tight.output == "The mobile app crashes whenever I upload a photo."
            )
            run = judge_outputs(
                [
                    Item("loose", ticket["input"], loose.output or "", ticket["reference"]),
                    Item("tight", ticket["input"], tight.output or "", ticket["reference"]),
                ],
                judge,
            )
            loose_score, tight_score = (r.score for r in run.items)
            assert loose_score is not None and tight_score is not None and tight_score > loose_score
