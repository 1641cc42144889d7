"""The judge against a real HTTP server on loopback speaking the chat-completions protocol (no SDK mocks).

Scripted endpoints: a strongly position-biased judge, malformed answers, 429 storms with Retry-After, 500s,
timeouts, bodies that are not JSON, servers without structured output, answers without usage.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from core.errors import JudgeError
from core.judge import Item, Judge, compare, compare_many, feedback_from_run, judge_outputs, propose_rewrites
from core.judge.pairwise import Pair
from tests.core.judge.conftest import CRITERIA, fast_settings
from tests.fakes.openai_server import FakeOpenAI, RecordedRequest, Reply, judge_answer

QUALITY = {"accuracy": 0.9, "completeness": 0.6, "conciseness": 0.3}

Serve = Callable[..., FakeOpenAI]


def criteria_order(prompt: str) -> list[str]:
    listed = re.findall(r"^- (\w+)$", prompt, flags=re.MULTILINE)
    return [name for name in listed if name in QUALITY]


def primacy_biased(request: RecordedRequest) -> str:
    """A judge whose overall score is whatever the first-listed criterion deserves (a strong position bias),
    nudged up when the candidate is shown before the reference."""
    prompt = request.last_user
    first = criteria_order(prompt)[0]
    overall = QUALITY[first]
    if "<reference_answer>" in prompt:
        overall += 0.1 if prompt.index("<candidate_output>") < prompt.index("<reference_answer>") else -0.1
    return judge_answer(QUALITY, overall, reasoning=f"first criterion {first}")


def items(n: int, *, reference: str | None = None) -> list[Item]:
    return [
        Item(id=f"q{i}", input=f"question {i}", output=f"answer {i}", reference=reference) for i in range(n)
    ]


def test_single_scores_do_not_depend_on_criteria_order(serve: Serve, tmp_path: Path) -> None:
    fake = serve(primacy_biased)
    orders = [
        CRITERIA,
        ("conciseness", "accuracy", "completeness"),
        ("completeness", "conciseness", "accuracy"),
    ]
    scores = []
    for index, order in enumerate(orders):
        settings = fast_settings(fake, tmp_path, criteria=order, cache_path=tmp_path / f"c{index}.sqlite")
        run = judge_outputs(items(2), settings)
        scores.append([r.score for r in run.items])
    assert scores[0] == scores[1] == scores[2] == [pytest.approx(0.6), pytest.approx(0.6)]
    assert scores[0][0] == scores[1][0] == scores[2][0]  # exactly equal, not merely close
    # The bias is real: a single unrotated sample scores whatever criterion happens to come first.
    single = [
        judge_outputs(items(1), fast_settings(fake, tmp_path, criteria=o, samples=1, cache_path=None))
        .items[0]
        .score
        for o in orders
    ]
    assert single == [pytest.approx(0.9), pytest.approx(0.3), pytest.approx(0.6)]


def test_reference_order_is_balanced_too(serve: Serve, tmp_path: Path) -> None:
    fake = serve(primacy_biased)
    results = []
    for index, order in enumerate([CRITERIA, tuple(reversed(CRITERIA))]):
        settings = fast_settings(fake, tmp_path, criteria=order, samples=6, weight=1.0, cache_path=None)
        run = judge_outputs(items(1, reference="the reference"), settings)
        results.append(run.items[0].llm_score)
        prompts = [r.last_user for r in fake.chat_requests()[index * 6 :]]
        assert len(set(prompts)) == 6  # no two samples of the item send the same prompt
    assert results[0] == results[1] == pytest.approx(0.6)


def test_pairwise_reports_position_inconsistency(serve: Serve, tmp_path: Path) -> None:
    always_first = serve(lambda r: json.dumps({"reasoning": "the first one reads better", "winner": "A"}))
    settings = fast_settings(always_first, tmp_path)
    result = compare("short answer", "long answer", settings, input_text="q")
    assert result.winner == "tie" and result.consistent is False
    assert result.orders == ("a", "b")
    with Judge.open(settings) as judge:
        report = compare_many(judge, [Pair("x", "y", "q1"), Pair("u", "v", "q2")])
    assert report.position_consistency == 0.0 and report.ties == 2 and report.preferred == "tie"


def test_pairwise_consistent_judge_picks_the_better_output(serve: Serve, tmp_path: Path) -> None:
    def prefers_good(request: RecordedRequest) -> str:
        prompt = request.last_user
        a_text = prompt.split("<output_A>")[1].split("</output_A>")[0]
        b_text = prompt.split("<output_B>")[1].split("</output_B>")[0]
        if "good" in a_text and "good" in b_text:
            return json.dumps({"reasoning": "same", "winner": "A"})  # position bias on the hard case
        return json.dumps({"reasoning": "r", "winner": "A" if "good" in a_text else "B"})

    fake = serve(prefers_good)
    with Judge.open(fast_settings(fake, tmp_path)) as judge:
        report = compare_many(
            judge,
            [Pair("good", "bad"), Pair("bad", "good"), Pair("good one", "good two"), Pair("bad", "good!")],
        )
    assert [r.winner for r in report.results] == ["a", "b", "tie", "b"]
    assert report.position_consistency == pytest.approx(0.75)
    assert (report.wins_a, report.wins_b, report.ties, report.preferred) == (1, 2, 1, "b")


def test_malformed_answers_are_repaired_once_then_counted_never_zero(serve: Serve, tmp_path: Path) -> None:
    def garbage_then_json(request: RecordedRequest) -> str:
        if "could not be used" in request.last_user:
            return judge_answer(QUALITY, 0.8)
        return "I would rate this quite highly, maybe an 8?"

    fake = serve(garbage_then_json)
    run = judge_outputs(items(2), fast_settings(fake, tmp_path))
    assert [r.score for r in run.items] == [pytest.approx(0.8)] * 2
    assert run.parse_failures == 0
    repairs = [r for r in fake.chat_requests() if "could not be used" in r.last_user]
    assert len(repairs) == 6
    assert repairs[0].messages[-2] == {
        "role": "assistant",
        "content": "I would rate this quite highly, maybe an 8?",
    }

    hopeless = serve(lambda r: '{"reasoning": "no score here"}')
    run = judge_outputs(items(2), fast_settings(hopeless, tmp_path, cache_path=None))
    assert run.judged == 2 and run.parse_failures == 6
    assert all(r.score is None and list(s.score for s in r.samples) == [None] * 3 for r in run.items)
    assert run.summary.mean is None
    doc = run.to_json()
    assert doc["items"][0]["score"] is None and doc["items"][0]["parse_failures"] == 3
    assert len(hopeless.chat_requests()) == 12  # each sample asked once and repaired once, no more


def test_one_failed_sample_leaves_the_mean_of_the_others(serve: Serve, tmp_path: Path) -> None:
    def second_rotation_broken(request: RecordedRequest) -> str:
        if criteria_order(request.messages[1]["content"])[0] == "completeness":
            return "not json at all"
        return judge_answer(QUALITY, 0.5 if criteria_order(request.last_user)[0] == "accuracy" else 1.0)

    fake = serve(second_rotation_broken)
    run = judge_outputs(items(1), fast_settings(fake, tmp_path))
    result = run.items[0]
    assert [s.score for s in result.samples] == [0.5, None, 1.0]
    assert result.score == pytest.approx(0.75) and result.parse_failures == 1


def test_tolerant_parsing_needs_no_retry(serve: Serve, tmp_path: Path) -> None:
    answer = (
        'Here you go:\n```json\n{"reasoning": "fine", "scores": {"accuracy": "4"}, "overall": "4"}\n```\nBye'
    )
    fake = serve(lambda r: answer)
    run = judge_outputs(items(1), fast_settings(fake, tmp_path, scale="1-5"))
    assert run.items[0].score == pytest.approx(0.75)
    assert len(fake.chat_requests()) == 3


def test_429_storm_with_retry_after_is_absorbed_and_counted(serve: Serve, tmp_path: Path) -> None:
    def storm(request: RecordedRequest) -> Reply | str:
        if request.attempt <= 3:
            return Reply(status=429, headers={"Retry-After": "0.02"})
        return judge_answer(QUALITY, 0.7)

    fake = serve(storm)
    run = judge_outputs(items(3), fast_settings(fake, tmp_path))
    assert run.judged == 3 and run.parse_failures == 0
    assert [r.score for r in run.items] == [pytest.approx(0.7)] * 3
    assert run.rate_limited == 27 and run.retries == 27 and run.calls == 9
    waits = _retry_gaps(fake)
    assert waits and min(waits) >= 0.015  # Retry-After was honoured, not a hot loop


def _retry_gaps(fake: FakeOpenAI) -> list[float]:
    by_body: dict[bytes, list[float]] = {}
    for request in fake.chat_requests():
        by_body.setdefault(request.raw_body, []).append(request.received_at)
    return [b - a for times in by_body.values() for a, b in itertools.pairwise(times)]


def test_500s_are_retried_and_a_dead_endpoint_leaves_items_unjudged(serve: Serve, tmp_path: Path) -> None:
    flaky = serve(lambda r: Reply(status=500) if r.attempt == 1 else judge_answer(QUALITY, 0.4))
    run = judge_outputs(items(1), fast_settings(flaky, tmp_path, samples=1))
    assert run.items[0].score == pytest.approx(0.4) and run.server_errors == 1 and run.retries == 1

    dead = serve(lambda r: Reply(status=503, headers={"retry-after-ms": "5"}))
    run = judge_outputs(items(2), fast_settings(dead, tmp_path, max_retries=2, cache_path=None))
    assert run.judged == 0 and run.unjudged == 2 and run.endpoint_failures == 2
    assert all(r.score is None and r.unjudged_reason and "503" in r.unjudged_reason for r in run.items)
    assert run.server_errors == 6 * 3  # 6 samples, each tried 1 + 2 times


def test_timeouts_are_retried(serve: Serve, tmp_path: Path) -> None:
    slow_first = serve(
        lambda r: Reply(content=judge_answer(QUALITY, 0.9), delay_s=2.0 if r.attempt == 1 else 0.0)
    )
    run = judge_outputs(items(1), fast_settings(slow_first, tmp_path, samples=1, timeout_s=0.3))
    assert run.items[0].score == pytest.approx(0.9)
    assert run.no_answer == 1 and run.retries == 1


def test_malformed_http_body_is_a_counted_retry(serve: Serve, tmp_path: Path) -> None:
    def broken_body(request: RecordedRequest) -> Reply | str:
        if request.attempt == 1:
            return Reply(body=b'{"choices": [ this is not json', headers={"Content-Type": "application/json"})
        return judge_answer(QUALITY, 0.6)

    fake = serve(broken_body)
    with Judge.open(fast_settings(fake, tmp_path, samples=2)) as judge:
        run = judge_outputs(items(1), judge)
        assert judge.counters.repair_retries == 2
    assert run.items[0].score == pytest.approx(0.6) and run.parse_failures == 0


def test_endpoint_without_structured_output_falls_back_to_tolerant_parsing(
    serve: Serve, tmp_path: Path
) -> None:
    def no_json_schema(request: RecordedRequest) -> Reply | str:
        if "response_format" in request.body:
            return Reply(status=400, body=b'{"error": {"message": "response_format is not supported"}}')
        return "```json\n" + judge_answer(QUALITY, 0.5) + "\n```"

    fake = serve(no_json_schema)
    run = judge_outputs(items(2), fast_settings(fake, tmp_path, concurrency=1))
    assert [r.score for r in run.items] == [0.5, 0.5]
    sent = fake.chat_requests()
    assert "response_format" in sent[0].body and all("response_format" not in r.body for r in sent[1:])


def test_missing_usage_is_charged_at_the_reserved_worst_case(serve: Serve, tmp_path: Path) -> None:
    fake = serve(lambda r: Reply(content=judge_answer(QUALITY, 0.5), include_usage=False))
    with Judge.open(fast_settings(fake, tmp_path, samples=1)) as judge:
        run = judge_outputs(items(1), judge)
        assert judge.counters.usage_missing == 1
    assert run.spent_usd > 0.0006  # at least max_tokens (1024) of gpt-4o-mini output


def test_cache_hits_cost_nothing_and_say_so(serve: Serve, tmp_path: Path) -> None:
    fake = serve(lambda r: Reply(content=judge_answer(QUALITY, 0.7), usage=(500, 100)))
    settings = fast_settings(fake, tmp_path)
    first = judge_outputs(items(3), settings)
    assert first.spent_usd == pytest.approx(9 * (500 * 0.15 + 100 * 0.60) / 1e6)
    assert not any(r.cached for r in first.items)
    second = judge_outputs(items(3), settings)
    assert len(fake.chat_requests()) == 9
    assert second.spent_usd == 0.0 and second.cache_hits == 9 and second.calls == 0
    assert all(r.cached and r.cost_usd == 0.0 for r in second.items)
    assert [r.score for r in second.items] == [r.score for r in first.items]


def test_errors_are_not_cached(serve: Serve, tmp_path: Path) -> None:
    fake = serve(lambda r: '{"reasoning": "forgot the score"}')
    settings = fast_settings(fake, tmp_path, samples=1)
    judge_outputs(items(1), settings)
    judge_outputs(items(1), settings)
    assert (
        len(fake.chat_requests()) == 4
    )  # asked (and repaired) again: failures are never replayed from cache


def test_refused_requests_and_unknown_prices_fail_closed(serve: Serve, tmp_path: Path) -> None:
    unauthorized = serve(lambda r: Reply(status=401))
    with pytest.raises(JudgeError, match="refused the API key from OPENAI_API_KEY"):
        judge_outputs(items(4), fast_settings(unauthorized, tmp_path))
    assert len(unauthorized.chat_requests()) <= 8  # stopped, not hammered for every sample
    priced = serve(lambda r: judge_answer(QUALITY, 0.5))
    with pytest.raises(JudgeError, match="no price known for model 'local-llama'"):
        judge_outputs(items(1), fast_settings(priced, tmp_path, model="local-llama"))
    assert priced.chat_requests() == []
    run = judge_outputs(items(1), fast_settings(priced, tmp_path, model="local-llama", free=True))
    assert run.spent_usd == 0.0 and run.budget_usd is None


def test_unreachable_endpoint_is_one_clear_error(tmp_path: Path) -> None:
    from core.judge import JudgeSettings

    settings = JudgeSettings(
        base_url="http://127.0.0.1:9/v1", cache_path=None, max_retries=0, timeout_s=2, samples=1
    )
    with pytest.raises(JudgeError, match=r"cannot reach the judge endpoint http://127\.0\.0\.1:9/v1"):
        judge_outputs(items(1), settings)


def test_budget_stops_new_calls_before_the_cap(serve: Serve, tmp_path: Path) -> None:
    fake = serve(lambda r: Reply(content=judge_answer(QUALITY, 0.5), usage=(1000, 200)))
    settings = fast_settings(fake, tmp_path, model="gpt-4o", budget_usd=0.05, max_tokens=256)
    run = judge_outputs(items(20), settings)
    assert run.budget_exhausted and 0 < run.judged < 20
    charged = len(fake.chat_requests()) * (1000 * 2.5 + 200 * 10.0) / 1e6
    assert run.spent_usd == pytest.approx(charged) and charged <= 0.05
    assert [r.judged for r in run.items] == sorted((r.judged for r in run.items), reverse=True)  # a prefix
    rerun = judge_outputs(
        items(20), fast_settings(fake, tmp_path, model="gpt-4o", budget_usd=1.0, max_tokens=256)
    )
    assert rerun.judged == 20 and not rerun.budget_exhausted
    assert len(fake.chat_requests()) == 60  # every sample was asked exactly once over the two runs
    assert all(r.cached for r in rerun.items[: run.judged])


def test_teacher_proposes_distinct_rewrites_from_feedback(serve: Serve, tmp_path: Path) -> None:
    def teacher_or_judge(request: RecordedRequest) -> str:
        if request.model == "gpt-4o":
            if "<already_proposed>" in request.last_user:
                return json.dumps(
                    {"rewrites": [{"rationale": "r", "prompt": "Summarize in one line: {input}"}]}
                )
            return json.dumps(
                {
                    "rewrites": [
                        {"rationale": "unchanged", "prompt": "Summarize: {input}"},
                        {"rationale": "shorter", "prompt": "Summarize briefly: {input}"},
                        {"rationale": "dup", "prompt": "Summarize  briefly:  {input}"},
                    ]
                }
            )
        return judge_answer(QUALITY, 0.3, reasoning="misses the key point")

    fake = serve(teacher_or_judge)
    with Judge.open(fast_settings(fake, tmp_path)) as judge:
        run = judge_outputs(items(2), judge)
        feedback = feedback_from_run(run)
        proposals = propose_rewrites(
            "Summarize: {input}", task="Summarize support tickets", feedback=feedback, count=2, judge=judge
        )
    assert "Mean score 0.300" in feedback and "misses the key point" in feedback
    assert feedback.index("conciseness") < feedback.index("accuracy")  # weakest criterion first
    assert [r.prompt for r in proposals.rewrites] == [
        "Summarize briefly: {input}",
        "Summarize in one line: {input}",
    ]
    assert proposals.problem is None and proposals.cost_usd > 0
    teacher_calls = [r for r in fake.chat_requests() if r.model == "gpt-4o"]
    assert len(teacher_calls) == 2
    assert "misses the key point" in teacher_calls[0].last_user
    assert "Summarize briefly: {input}" in teacher_calls[1].last_user


def test_sampling_parameters_and_schema_reach_the_endpoint(serve: Serve, tmp_path: Path) -> None:
    fake = serve(lambda r: judge_answer(QUALITY, 0.5))
    judge_outputs(items(1), fast_settings(fake, tmp_path, samples=1))
    body = fake.chat_requests()[0].body
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.0 and body["max_tokens"] == 1024
    schema = body["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == ["reasoning", "scores", "overall"]  # reasoning first
    assert fake.chat_requests()[0].headers.get("authorization") == "Bearer no-key-needed"
