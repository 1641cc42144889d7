"""A judge error carries the edge it crossed: the endpoint (redacted), its HTTP status and the model; or the
items file and line. The one-line CLI message names the endpoint without its credentials."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from core.cli import main
from core.errors import JudgeError
from core.judge import Item, judge_outputs
from core.judge.run import load_items, load_labels
from tests.core.judge.conftest import fast_settings
from tests.fakes.openai_server import FakeOpenAI, Reply

Serve = Callable[..., FakeOpenAI]


def _with_credentials(base_url: str) -> str:
    return base_url.replace("http://", "http://judge-user:s3cret@", 1)


def test_a_refused_key_carries_status_model_and_the_redacted_endpoint(serve: Serve, tmp_path: Path) -> None:
    fake = serve(lambda r: Reply(status=401))
    settings = fast_settings(fake, tmp_path, base_url=_with_credentials(fake.base_url))
    with pytest.raises(JudgeError) as caught:
        judge_outputs([Item(id="q0", input="question", output="answer")], settings)
    error = caught.value
    assert (error.status, error.model) == (401, "gpt-4o-mini")
    assert error.url is not None and error.url.startswith("http://***@127.0.0.1:")
    assert "s3cret" not in str(error) and "s3cret" not in error.url
    assert str(error).startswith(f"{error.url}: the endpoint refused the API key") and "HTTP 401" in str(
        error
    )


def test_proctor_judge_names_the_endpoint_and_status_in_one_line_without_the_password(
    serve: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = serve(lambda r: Reply(status=403))
    monkeypatch.chdir(tmp_path)
    Path("items.jsonl").write_text(json.dumps({"id": "q0", "input": "x", "output": "y"}) + "\n")
    args = ["judge", "--input", "items.jsonl", "--base-url", _with_credentials(fake.base_url), "--free"]
    assert main(args) == 2
    err = capsys.readouterr().err
    shown = fake.base_url.replace("http://", "http://***@", 1)
    assert err.startswith(f"proctor: error: {shown}") and "HTTP 403" in err
    assert "s3cret" not in err and err.count("\n") == 1


def test_a_bad_items_line_carries_file_and_line(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text('{"input": "a", "output": "b"}\n[1, 2]\n')
    with pytest.raises(JudgeError) as caught:
        load_items(items)
    assert (caught.value.path, caught.value.line) == (items, 2)
    assert str(caught.value) == f"{items}:2: expected a JSON object, found list"
    labels = tmp_path / "labels.csv"
    labels.write_text("name,value\n")
    with pytest.raises(JudgeError) as header:
        load_labels(labels)
    assert (header.value.path, header.value.line) == (labels, 1)
