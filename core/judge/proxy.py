"""The judge proxy (SPEC §4.5): how a prompt campaign's evaluators reach the judge without ever holding its key.

Proctor runs this small HTTP server on the loopback interface for the length of a campaign. The evaluator
sandbox gets the network (`evaluator_network`) and, instead of the endpoint and its key, this proxy's URL and
a random per-campaign token. Each chat-completions request that carries the token is forwarded to the real
endpoint with the real `Authorization` header added; anything else is refused. Every forwarded call is priced
(SPEC §7 Cost) and held against the campaign's hard budget with the judge's own reserve-then-reconcile
`Budget`: once a call cannot fit, the proxy answers 402 and forwards nothing, whatever the evaluator does.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from core.errors import JudgeError
from core.judge.cost import Budget, price_for, worst_case_prompt_tokens

DEFAULT_UPSTREAM = "https://api.openai.com/v1"  # the openai SDK's default endpoint
PATH_PREFIX = "/v1"
FEEDBACK_PREFIX = "/proctor/feedback/"
_MAX_BODY = 8 * 1024 * 1024
_DEFAULT_MAX_TOKENS = 4096  # what a call without max_tokens is assumed to be able to cost
_FORWARDED_HEADERS = ("content-type", "accept", "x-stainless-retry-count")


class JudgeProxy:
    """A running proxy: `base_url` and `token` are what evaluators get; `spent_usd` what they cost."""

    def __init__(
        self,
        upstream: str,
        api_key: str,
        *,
        cap_usd: float | None,
        prices: Mapping[str, Sequence[float]] | None = None,
        free: bool = False,
        timeout_s: float = 120.0,
    ) -> None:
        import httpx

        self.upstream = (upstream or DEFAULT_UPSTREAM).rstrip("/")
        self.token = secrets.token_urlsafe(24)
        self.prices = dict(prices or {})
        self.free = free
        self.budget = Budget(cap_usd)
        self.refused = 0
        self.feedback: dict[int, bytes] = {}  # the evaluator runs' reports, by candidate index
        self._key = api_key
        self._client = httpx.Client(timeout=timeout_s)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="judge-proxy", daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}{PATH_PREFIX}"

    def feedback_url(self, index: int) -> str:
        """Where the run of candidate `index` posts its feedback document (its sandbox has no shared dir)."""
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}{FEEDBACK_PREFIX}{index}"

    @property
    def spent_usd(self) -> float:
        return self.budget.spent_usd

    def set_cap(self, cap_usd: float | None) -> None:
        """A new hard cap for what follows (what is left of the campaign's budget); spend starts at 0."""
        self.budget = Budget(cap_usd)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()

    def __enter__(self) -> JudgeProxy:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- one request

    def authorized(self, header: str) -> bool:
        return hmac.compare_digest(header.encode(), f"Bearer {self.token}".encode())

    def forward(self, path: str, body: bytes, headers: Mapping[str, str]) -> tuple[int, bytes, str]:
        """(status, body, content type) for one authorized request."""
        try:
            request = json.loads(body)
            model = str(request["model"])
            messages = request.get("messages") or []
            price = price_for(model, self.prices, free=self.free)
        except (ValueError, KeyError, TypeError) as exc:
            return _error(400, f"the judge proxy expects a chat-completions JSON body: {exc}")
        except JudgeError as exc:
            return _error(400, str(exc))
        limit = request.get("max_completion_tokens") or request.get("max_tokens") or _DEFAULT_MAX_TOKENS
        estimate = price.cost(worst_case_prompt_tokens(messages, request.get("response_format")), int(limit))
        budget = self.budget  # `set_cap` may swap it while this call is in flight
        held = budget.reserve(estimate)
        if held is None:
            self.refused += 1
            return _error(402, "the campaign's judge budget is spent: the judge proxy forwards no more calls")
        outgoing = {k: v for k, v in headers.items() if k.lower() in _FORWARDED_HEADERS}
        if self._key:
            outgoing["Authorization"] = f"Bearer {self._key}"
        try:
            reply = self._client.post(self.upstream + path, content=body, headers=outgoing)
        except Exception as exc:  # a transport failure is the caller's 502, never the proxy's crash
            budget.release(held)
            return _error(502, f"the judge endpoint could not be reached: {type(exc).__name__}")
        budget.reconcile(held, _cost(reply.content, price, estimate) if reply.is_success else 0.0)
        return reply.status_code, reply.content, reply.headers.get("content-type", "application/json")


def _cost(content: bytes, price: Any, estimate: float) -> float:
    """What a reply cost from its `usage`; the worst-case estimate when it does not say."""
    try:
        usage = json.loads(content)["usage"]
        return float(price.cost(int(usage["prompt_tokens"]), int(usage["completion_tokens"])))
    except (ValueError, KeyError, TypeError):
        return estimate


def _error(status: int, message: str) -> tuple[int, bytes, str]:
    body = {"error": {"message": message, "type": "proctor_judge_proxy"}}
    return status, json.dumps(body).encode(), "application/json"


def _handler_for(proxy: JudgeProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if not proxy.authorized(self.headers.get("Authorization", "")):
                self._send(*_error(401, "the judge proxy needs the campaign's token"))
                return
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= _MAX_BODY:
                self._send(*_error(413, "request body missing or too large"))
                return
            body = self.rfile.read(length)
            index = self.path.removeprefix(FEEDBACK_PREFIX)
            if self.path.startswith(FEEDBACK_PREFIX) and index.isdigit():
                proxy.feedback[int(index)] = body
                self._send(200, b"{}", "application/json")
            elif self.path.startswith(PATH_PREFIX + "/"):
                self._send(*proxy.forward(self.path[len(PATH_PREFIX) :], body, dict(self.headers.items())))
            else:
                self._send(*_error(404, f"no such path on the judge proxy: {self.path}"))

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: a campaign's terminal shows its progress bar, not request logs."""

    return Handler
