"""The judge proxy (SPEC §4.5, §7 Cost): evaluators reach the judge with a campaign token, the endpoint sees
only Proctor's key, nothing passes without the token, and the campaign's budget is a hard cap on what passes.
Real `openai` SDK over real loopback HTTP, in front of the fake endpoint."""

from __future__ import annotations

import json
import urllib.request

import openai
import pytest

from core.judge.proxy import JudgeProxy
from tests.fakes.openai_server import FakeOpenAI, Reply

PRICES = {"m": [1.0, 1.0]}  # $1 per million tokens in and out: a call of 1000 + 1000 tokens costs $0.002


def _ask(base_url: str, key: str) -> str | None:
    client = openai.OpenAI(api_key=key, base_url=base_url, max_retries=0)
    try:
        reply = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], max_tokens=100
        )
    finally:
        client.close()
    return reply.choices[0].message.content


def test_the_proxy_adds_the_key_and_holds_the_budget() -> None:
    with FakeOpenAI(lambda _request: Reply(content="ok", usage=(1000, 1000))) as fake:
        proxy = JudgeProxy(fake.base_url, "sk-real", cap_usd=0.0105, prices=PRICES)
        try:
            assert proxy.token != "sk-real" and "sk-real" not in proxy.base_url
            with pytest.raises(openai.AuthenticationError):
                _ask(proxy.base_url, "sk-guess")  # no token, nothing forwarded
            assert fake.chat_requests() == []
            answers = [_ask(proxy.base_url, proxy.token) for _ in range(5)]
            assert answers == ["ok"] * 5
            with pytest.raises(openai.APIStatusError) as refused:
                _ask(proxy.base_url, proxy.token)
            assert refused.value.status_code == 402 and "budget" in str(refused.value)
            forwarded = fake.chat_requests()
            assert len(forwarded) == 5 and proxy.refused == 1
            assert all(r.headers["authorization"] == "Bearer sk-real" for r in forwarded)
            assert not any(proxy.token in json.dumps(dict(r.headers)) for r in forwarded)
            assert proxy.spent_usd == pytest.approx(0.010) and proxy.spent_usd <= 0.0105
            proxy.set_cap(0.0025)  # the next iteration's runs: what is left of the campaign's budget
            assert _ask(proxy.base_url, proxy.token) == "ok"
            with pytest.raises(openai.APIStatusError):
                _ask(proxy.base_url, proxy.token)
        finally:
            proxy.close()


def test_feedback_is_posted_to_the_proxy_with_the_token() -> None:
    with FakeOpenAI(lambda _request: "unused") as fake:
        with JudgeProxy(fake.base_url, "", cap_usd=None, free=True) as proxy:
            body = json.dumps({"schema": 1}).encode()
            for token, expected in (("wrong", 401), (proxy.token, 200)):
                request = urllib.request.Request(
                    proxy.feedback_url(3), data=body, headers={"Authorization": f"Bearer {token}"}
                )
                try:
                    with urllib.request.urlopen(request, timeout=10) as reply:
                        status = reply.status
                except urllib.error.HTTPError as exc:
                    status = exc.code
                assert status == expected
            assert proxy.feedback == {3: body}
        assert fake.chat_requests() == []
