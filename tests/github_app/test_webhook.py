"""Pure webhook verification and parsing: GitHub's documented test vector, every refusal's status."""

from __future__ import annotations

import json

import pytest

from github_app.webhook import (
    MAX_BODY_BYTES,
    Event,
    WebhookRejected,
    parse_event,
    signature,
    verify_signature,
)

SECRET = "It's a Secret to Everybody"


def headers(body: bytes, **extra: str) -> dict[str, str]:
    base = {
        "X-Hub-Signature-256": signature(body, SECRET),
        "X-GitHub-Event": "ping",
        "X-GitHub-Delivery": "d-1",
    }
    base.update(extra)
    return base


def test_githubs_documented_test_vector() -> None:
    # https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert signature(b"Hello, World!", SECRET) == expected
    verify_signature({"X-Hub-Signature-256": expected}, b"Hello, World!", SECRET)
    with pytest.raises(WebhookRejected) as caught:
        verify_signature({"X-Hub-Signature-256": expected}, b"Hello, World?", SECRET)
    assert caught.value.status == 401


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ({}, "missing X-Hub-Signature-256"),
        ({"X-Hub-Signature": "sha1=" + "0" * 40}, "SHA-1"),
        ({"X-Hub-Signature-256": "sha256=xyz"}, "not of the form"),
        ({"X-Hub-Signature-256": "sha256=" + "0" * 64}, "does not match"),
        ({"X-Hub-Signature-256": "sha1=" + "0" * 64}, "not of the form"),
    ],
)
def test_bad_signatures_are_401(given: dict[str, str], reason: str) -> None:
    with pytest.raises(WebhookRejected) as caught:
        parse_event({"X-GitHub-Event": "ping", "X-GitHub-Delivery": "d", **given}, b"{}", SECRET)
    assert caught.value.status == 401
    assert reason in caught.value.reason


def test_headers_are_case_insensitive_and_event_parses() -> None:
    body = json.dumps({"action": "opened", "zen": "x"}).encode()
    lowered = {k.lower(): v for k, v in headers(body, **{"X-GitHub-Event": "pull_request"}).items()}
    event = parse_event(lowered, body, SECRET)
    assert event == Event("pull_request", "d-1", {"action": "opened", "zen": "x"})
    assert event.action == "opened"


@pytest.mark.parametrize(
    "body", [b"{", b"[1, 2]", b'"text"', b"\xff\xfe", b'{"a": NaN}', b"[" * 100_000 + b"]" * 100_000]
)
def test_malformed_json_is_400(body: bytes) -> None:
    with pytest.raises(WebhookRejected) as caught:
        parse_event(headers(body), body, SECRET)
    assert caught.value.status == 400


@pytest.mark.parametrize(
    "missing", [{"X-GitHub-Event": ""}, {"X-GitHub-Delivery": ""}, {"X-GitHub-Delivery": "a b\nc"}]
)
def test_missing_event_or_delivery_is_400(missing: dict[str, str]) -> None:
    with pytest.raises(WebhookRejected) as caught:
        parse_event(headers(b"{}", **missing), b"{}", SECRET)
    assert caught.value.status == 400


def test_oversized_body_is_413_before_verification() -> None:
    body = b" " * (MAX_BODY_BYTES + 1)
    with pytest.raises(WebhookRejected) as caught:
        parse_event({}, body, SECRET)
    assert caught.value.status == 413
