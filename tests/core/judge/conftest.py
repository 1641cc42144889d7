"""Shared pieces for the judge tests: a loopback fake endpoint and fast settings pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.judge import JudgeSettings
from tests.fakes.openai_server import FakeOpenAI, Responder

CRITERIA = ("accuracy", "completeness", "conciseness")


@pytest.fixture(autouse=True)
def _no_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach a real provider: no key in the environment, no default base URL override."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeOpenAI]]:
    """Start fakes on demand (`fake = serve(responder)`); all are stopped after the test."""
    started: list[FakeOpenAI] = []

    def start(responder: Responder, **kwargs: Any) -> FakeOpenAI:
        fake = FakeOpenAI(responder, **kwargs).start()
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.stop()


def fast_settings(fake: FakeOpenAI, tmp_path: Path, **overrides: Any) -> JudgeSettings:
    """Settings for the fake: a priced model, a per-test cache, short timeouts."""
    base = JudgeSettings(
        model="gpt-4o-mini",
        base_url=fake.base_url,
        criteria=CRITERIA,
        cache_path=tmp_path / "cache.sqlite",
        timeout_s=5.0,
        max_retries=4,
    )
    return replace(base, **overrides)
