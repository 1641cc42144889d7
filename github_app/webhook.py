"""Webhook verification and parsing, pure: `(headers, body, secret) -> Event` (SPEC §10 "Webhook").

No I/O here, so every status the endpoint can answer is decided by code a unit test calls directly. The
signature is HMAC-SHA256 of the raw body (`X-Hub-Signature-256: sha256=<hex>`), compared in constant time;
the legacy SHA-1 `X-Hub-Signature` alone is refused, never used as a fallback.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import WebhookRejected

MAX_BODY_BYTES = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB and does not deliver larger ones
_SIGNATURE = re.compile(r"sha256=([0-9a-fA-F]{64})")
_TOKEN = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


@dataclass(frozen=True)
class Event:
    """One verified delivery: `name` is X-GitHub-Event, `action` the payload's action (None when absent)."""

    name: str
    delivery_id: str
    payload: Mapping[str, Any]

    @property
    def action(self) -> str | None:
        action = self.payload.get("action")
        return action if isinstance(action, str) else None


def signature(body: bytes, secret: str) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body` (tests and the load bench sign with it)."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify_signature(headers: Mapping[str, str], body: bytes, secret: str) -> None:
    """Raise WebhookRejected(401) unless `X-Hub-Signature-256` is the HMAC-SHA256 of `body` under `secret`."""
    lowered = {k.lower(): v for k, v in headers.items()}
    given = lowered.get("x-hub-signature-256")
    if given is None:
        if "x-hub-signature" in lowered:
            raise WebhookRejected(401, "only X-Hub-Signature (SHA-1) given: X-Hub-Signature-256 is required")
        raise WebhookRejected(401, "missing X-Hub-Signature-256")
    match = _SIGNATURE.fullmatch(given.strip())
    if match is None:
        raise WebhookRejected(401, "X-Hub-Signature-256 is not of the form sha256=<64 hex digits>")
    if not hmac.compare_digest(signature(body, secret), "sha256=" + match.group(1).lower()):
        raise WebhookRejected(401, "X-Hub-Signature-256 does not match the body")


def parse_event(headers: Mapping[str, str], body: bytes, secret: str) -> Event:
    """Verify, then parse one delivery; every refusal is a WebhookRejected with its status."""
    if len(body) > MAX_BODY_BYTES:
        raise WebhookRejected(413, f"body of {len(body)} bytes is over the {MAX_BODY_BYTES}-byte limit")
    verify_signature(headers, body, secret)
    lowered = {k.lower(): v for k, v in headers.items()}
    name = lowered.get("x-github-event", "").strip()
    delivery = lowered.get("x-github-delivery", "").strip()
    if not _TOKEN.fullmatch(name):
        raise WebhookRejected(400, "missing or malformed X-GitHub-Event")
    if not _TOKEN.fullmatch(delivery):
        raise WebhookRejected(400, "missing or malformed X-GitHub-Delivery")
    try:
        payload = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WebhookRejected(400, f"body is not JSON: {type(exc).__name__}") from None
    if not isinstance(payload, dict):
        raise WebhookRejected(400, f"body is JSON {type(payload).__name__}, expected an object")
    return Event(name=name, delivery_id=delivery, payload=payload)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
