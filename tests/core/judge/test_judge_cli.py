"""`proctor judge` end to end: JSONL in, SPEC §6 JSON out, exit codes 0 / 1 (budget) / 2 (error)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from tests.fakes.openai_server import FakeOpenAI, RecordedRequest, Reply, judge_answer

Serve = Callable[..., FakeOpenAI]

ITEM_KEYS = {"id", "score", "samples", "parse_failures", "cost_usd", "cached"}
TOP_KEYS = {
    "schema",
    "model",
    "criteria",
    "scale",
    "samples",
    "items",
    "mean",
    "stderr",
    "judged",
    "unjudged",
    "parse_failures",
    "spent_usd",
    "budget_usd",
    "budget_exhausted",
}


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def write_items(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def rows(n: int) -> list[dict[str, Any]]:
    return [{"id": f"q{i}", "input": f"question {i}", "output": f"answer {i}"} for i in range(n)]


def run_json(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, dict[str, Any], str]:
    code = main(["judge", *args, "--format", "json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def test_json_output_has_exactly_the_spec_shape(serve: Serve, capsys: pytest.CaptureFixture[str]) -> None:
    fake = serve(lambda r: Reply(content=judge_answer({"accuracy": 4}, 4), usage=(300, 50)))
    write_items(Path("items.jsonl"), [*rows(2), {"input": "x", "output": "y", "reference": "y"}])
    code, doc, err = run_json(
        capsys,
        ["--input", "items.jsonl", "--base-url", fake.base_url, "--scale", "1-5", "--criteria", "accuracy"],
    )
    assert code == 0
    assert set(doc) == TOP_KEYS and all(set(item) == ITEM_KEYS for item in doc["items"])
    assert doc["schema"] == 1 and doc["model"] == "gpt-4o-mini" and doc["criteria"] == ["accuracy"]
    assert (doc["scale"], doc["samples"], doc["judged"], doc["unjudged"]) == ("1-5", 3, 3, 0)
    assert [item["id"] for item in doc["items"]] == ["q0", "q1", "line-3"]
    assert doc["items"][0] == {
        "id": "q0",
        "score": 0.75,
        "samples": [0.75, 0.75, 0.75],
        "parse_failures": 0,
        "cost_usd": pytest.approx(3 * (300 * 0.15 + 50 * 0.6) / 1e6),
        "cached": False,
    }
    # The item with a reference blends the LLM score with ROUGE-1 recall (1.0 here), weight 0.5.
    assert doc["items"][2]["score"] == pytest.approx(0.875)
    assert doc["mean"] == pytest.approx((0.75 * 6 + 0.875 * 3) / 9)
    assert doc["budget_usd"] == 2.5 and doc["budget_exhausted"] is False
    assert "calls 9" in err and Path(".proctor/judge-cache.sqlite").is_file()


def test_text_output_and_rerun_from_cache(serve: Serve, capsys: pytest.CaptureFixture[str]) -> None:
    fake = serve(lambda r: judge_answer({"accuracy": 0.5, "completeness": 0.5, "conciseness": 0.5}, 0.5))
    write_items(Path("items.jsonl"), rows(3))
    assert main(["judge", "--input", "items.jsonl", "--base-url", fake.base_url]) == 0
    out = capsys.readouterr().out
    assert "mean 0.500" in out and "judged 3, unjudged 0" in out and "calls 9" in out
    code, doc, err = run_json(capsys, ["--input", "items.jsonl", "--base-url", fake.base_url])
    assert code == 0 and doc["spent_usd"] == 0.0
    assert all(item["cached"] and item["cost_usd"] == 0.0 for item in doc["items"])
    assert "cache hits 9" in err and len(fake.chat_requests()) == 9


def test_budget_exhausted_exits_1_and_a_larger_budget_finishes_from_cache(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = serve(lambda r: Reply(content=judge_answer({"accuracy": 0.8}, 0.8), usage=(1000, 200)))
    write_items(Path("items.jsonl"), rows(20))
    args = [
        "--input",
        "items.jsonl",
        "--base-url",
        fake.base_url,
        "--model",
        "gpt-4o",
        "--criteria",
        "accuracy",
    ]
    code, doc, err = run_json(capsys, [*args, "--budget", "0.05"])
    assert code == 1
    assert doc["budget_exhausted"] is True and doc["budget_usd"] == 0.05
    assert 0 < doc["judged"] < 20 and doc["judged"] + doc["unjudged"] == 20
    first_calls = len(fake.chat_requests())
    assert doc["spent_usd"] == pytest.approx(first_calls * (1000 * 2.5 + 200 * 10) / 1e6)
    assert doc["spent_usd"] <= 0.05
    assert "budget exhausted" in err
    done = {item["id"] for item in doc["items"]}

    code, doc, _ = run_json(capsys, [*args, "--budget", "1.00"])
    assert code == 0 and doc["judged"] == 20 and doc["unjudged"] == 0 and not doc["budget_exhausted"]
    assert len(fake.chat_requests()) == 60  # the second run asked only what the first had not
    assert all(item["cached"] and item["cost_usd"] == 0.0 for item in doc["items"] if item["id"] in done)
    assert doc["spent_usd"] == pytest.approx((60 - first_calls) * (1000 * 2.5 + 200 * 10) / 1e6)


def test_the_cap_holds_against_an_endpoint_billing_far_above_the_estimate(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each reply reports ~40x the tokens a short prompt can take: $0.0185 a call for gpt-4o against an
    # estimate of a few tenths of a cent, so eight concurrent worst-case reservations fit in $0.05 but
    # eight real bills do not.
    fake = serve(lambda r: Reply(content=judge_answer({"accuracy": 0.8}, 0.8), usage=(5400, 500)))
    write_items(Path("items.jsonl"), rows(20))
    args = [
        "--input",
        "items.jsonl",
        "--base-url",
        fake.base_url,
        "--model",
        "gpt-4o",
        "--criteria",
        "accuracy",
    ]
    code, doc, err = run_json(capsys, [*args, "--budget", "0.05", "--samples", "1"])
    assert code == 1 and doc["budget_exhausted"] is True
    calls = len(fake.chat_requests())
    per_call = (5400 * 2.5 + 500 * 10) / 1e6
    assert doc["spent_usd"] == pytest.approx(calls * per_call)
    assert doc["spent_usd"] <= 0.05 and calls == 2  # 3 x $0.0185 would pass the cap
    assert "budget exhausted" in err


def test_text_output_says_the_budget_ran_out(serve: Serve, capsys: pytest.CaptureFixture[str]) -> None:
    fake = serve(lambda r: judge_answer({"accuracy": 0.8}, 0.8))
    write_items(Path("items.jsonl"), rows(2))
    code = main(["judge", "--input", "items.jsonl", "--base-url", fake.base_url, "--budget", "0"])
    out = capsys.readouterr().out
    assert code == 1
    assert "unjudged (budget exhausted)" in out and "budget exhausted: 2 items left unjudged" in out
    assert fake.chat_requests() == []


def test_labels_give_spearman_and_kappa(serve: Serve, capsys: pytest.CaptureFixture[str]) -> None:
    def by_input(request: RecordedRequest) -> str:
        rating = int(
            request.messages[1]["content"].split("<input>\n")[1].split("\n")[0].removeprefix("rate ")
        )
        return judge_answer({"accuracy": rating}, rating)

    fake = serve(by_input)
    write_items(
        Path("items.jsonl"), [{"id": f"i{k}", "input": f"rate {k}", "output": "o"} for k in range(1, 6)]
    )
    Path("labels.jsonl").write_text(
        "".join(
            json.dumps({"id": f"i{k}", "score": s}) + "\n"
            for k, s in zip(range(1, 6), [1, 3, 2, 4, 5], strict=True)
        )
    )
    Path("labels.csv").write_text("id,score\ni1,1\ni2,3\ni3,2\ni4,4\ni5,5\n")
    base = ["--input", "items.jsonl", "--base-url", fake.base_url, "--scale", "1-5", "--criteria", "accuracy"]
    for labels in ("labels.jsonl", "labels.csv"):
        code, doc, _ = run_json(capsys, [*base, "--labels", labels])
        assert code == 0
        # Judge 1..5 vs labels [1, 3, 2, 4, 5]: Σd² = 2, rho = 1 - 6·2/(5·24) = 0.9.
        # Kappa over 5 categories: Σw·O = 2/16, uniform margins give Σw·E = 100/16/5 = 1.25, so 1 - 0.125/1.25.
        assert doc["agreement"] == {"n": 5, "spearman": pytest.approx(0.9), "kappa": pytest.approx(0.9)}
    assert main(["judge", *base, "--labels", "labels.csv"]) == 0
    assert "Spearman 0.900, quadratic-weighted kappa 0.900" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"input": "a", "output": "b"}\n{"input": "a", "output": 3}\n',
            "items.jsonl:2: 'output' must be a string",
        ),
        ('{"input": "a", "output": "b"}\n\n{not json\n', "items.jsonl:3: not valid JSON"),
        ('["input", "output"]\n', "items.jsonl:1: expected a JSON object, found list"),
        ('{"input": "a"}\n', "items.jsonl:1: missing key 'output'"),
        ('{"input": "a", "output": "b", "refrence": "c"}\n', "items.jsonl:1: unknown key 'refrence'"),
        (
            '{"id": 1, "input": "a", "output": "b"}\n{"id": "1", "input": "a", "output": "b"}\n',
            "duplicate id '1'",
        ),
        ("\n\n", "items.jsonl: no items"),
    ],
)
def test_malformed_input_is_one_line_exit_2(
    content: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("items.jsonl").write_text(content, encoding="utf-8")
    assert main(["judge", "--input", "items.jsonl", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scale", "1-10"], "unknown judge scale '1-10'"),
        (["--samples", "0"], "judge samples must be at least 1"),
        (["--criteria", " , "], "name no criterion"),
        (["--model", "my-local-model"], "no price known for model 'my-local-model'"),
        (
            ["--base-url", "https://judge.example.invalid/v1"],
            "needs an API key: set the environment variable",
        ),
        (["--labels", "missing.csv"], "missing.csv: labels file not found"),
    ],
)
def test_bad_settings_are_one_line_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write_items(Path("items.jsonl"), rows(1))
    base = ["judge", "--input", "items.jsonl"]
    if "--base-url" not in args:
        base += ["--base-url", "http://127.0.0.1:9/v1"]
    assert main([*base, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_label_outside_the_scale_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    write_items(Path("items.jsonl"), rows(1))
    Path("labels.jsonl").write_text('{"id": "q0", "score": 7}\n')
    code = main(
        ["judge", "--input", "items.jsonl", "--base-url", "http://127.0.0.1:9/v1", "--labels", "labels.jsonl"]
    )
    assert code == 2
    assert "label 7 for id 'q0' is outside the scale 0-1" in capsys.readouterr().err


def test_free_local_model_needs_no_price_or_key(serve: Serve, capsys: pytest.CaptureFixture[str]) -> None:
    fake = serve(lambda r: judge_answer({"accuracy": 1}, 1))
    write_items(Path("items.jsonl"), rows(1))
    code, doc, _ = run_json(
        capsys, ["--input", "items.jsonl", "--base-url", fake.base_url, "--model", "smollm2", "--free"]
    )
    assert code == 0 and doc["spent_usd"] == 0.0 and doc["budget_usd"] is None


def test_config_supplies_defaults(serve: Serve, capsys: pytest.CaptureFixture[str]) -> None:
    fake = serve(lambda r: judge_answer({"tone": 8}, 8))
    Path("proctor.toml").write_text(
        f'[judge]\nmodel = "house-model"\nbase_url = "{fake.base_url}"\ncriteria = "tone"\nscale = "0-10"\n'
        'samples = 2\nprices = {"house-model" = [1.0, 2.0]}\n'
    )
    write_items(Path("items.jsonl"), rows(1))
    code, doc, _ = run_json(capsys, ["--input", "items.jsonl"])
    assert code == 0
    assert (doc["model"], doc["criteria"], doc["scale"], doc["samples"]) == (
        "house-model",
        ["tone"],
        "0-10",
        2,
    )
    assert doc["items"][0]["score"] == pytest.approx(0.8) and doc["spent_usd"] > 0


def test_dead_endpoint_prints_the_report_then_exits_2(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = serve(lambda r: Reply(status=500, headers={"retry-after-ms": "1"}))
    Path("proctor.toml").write_text("[judge]\nsamples = 1\n")
    write_items(Path("items.jsonl"), rows(1))
    assert main(["judge", "--input", "items.jsonl", "--base-url", fake.base_url]) == 2
    captured = capsys.readouterr()
    assert "unjudged" in captured.out
    assert "1 items left unjudged because the endpoint kept failing" in captured.err


def test_console_script_error_has_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "items.jsonl").write_text('{"input": "a", "output": "b"}\n{broken\n')
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "core",
            "judge",
            "--input",
            "items.jsonl",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("proctor: error: items.jsonl:2: not valid JSON")
    assert "Traceback" not in proc.stderr


def test_progress_bar_only_on_a_terminal(
    serve: Serve, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = serve(lambda r: judge_answer({"accuracy": 1}, 1))
    write_items(Path("items.jsonl"), rows(2))
    args = ["judge", "--input", "items.jsonl", "--base-url", fake.base_url, "--criteria", "accuracy"]
    assert main(args) == 0
    assert "judging" not in capsys.readouterr().err  # not a terminal: no bar in logs or pipes
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main([*args, "--cache", "other.sqlite"]) == 0
    assert "judging" in capsys.readouterr().err
