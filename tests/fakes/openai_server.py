"""A loopback fake of the OpenAI chat-completions API, for tests that run the real `openai` SDK over real HTTP.

The server listens on 127.0.0.1 in a background thread. Each request is recorded and handed to a `responder`
callable, which returns what to answer: a plain string (the assistant's content), a `Reply` (status, headers,
raw body, delay, usage), or a dict (a ready JSON body). Scripted failures — 429 with `Retry-After`, 500s,
malformed JSON bodies, answers slower than the client's timeout — are all `Reply` values, so one test can
script a storm of them per request.

    with FakeOpenAI(lambda req: judge_answer({"accuracy": 4}, 4)) as fake:
        client = OpenAI(api_key="test", base_url=fake.base_url)
        ...
        assert fake.requests[0].model == "gpt-4o-mini"
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """What the fake answers to one request. `content` becomes a normal chat completion; `body` is sent raw."""

    content: str | None = None
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | None = None
    delay_s: float = 0.0
    usage: tuple[int, int] | None = None  # (prompt_tokens, completion_tokens); None = estimated from text
    include_usage: bool = True


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it (header names lower-cased). `attempt` counts identical bodies seen so
    far, 1 the first time: the SDK resends the same body when it retries."""

    index: int
    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    raw_body: bytes
    attempt: int
    received_at: float

    @property
    def model(self) -> str:
        return str(self.body.get("model", "")) if isinstance(self.body, dict) else ""

    @property
    def messages(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict) and isinstance(self.body.get("messages"), list):
            return [m for m in self.body["messages"] if isinstance(m, dict)]
        return []

    @property
    def prompt(self) -> str:
        """All message contents joined, for responders that look at what was asked."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)

    @property
    def last_user(self) -> str:
        users = [m for m in self.messages if m.get("role") == "user"]
        return str(users[-1].get("content", "")) if users else ""


Responder = Callable[[RecordedRequest], "Reply | str | dict[str, Any]"]


def judge_answer(scores: Mapping[str, float], overall: float, reasoning: str = "looks fine") -> str:
    """The JSON a well-behaved judge returns: reasoning first, then scores, then overall."""
    return json.dumps({"reasoning": reasoning, "scores": dict(scores), "overall": overall})


def completion_body(content: str, model: str, usage: tuple[int, int] | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
    }
    if usage is not None:
        body["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
    return body


def estimate_usage(request: RecordedRequest, content: str) -> tuple[int, int]:
    """Roughly four characters a token, as real tokenizers do for English."""
    return max(1, len(request.prompt) // 4), max(1, len(content) // 4)


class FakeOpenAI:
    """The server. `latency_s` delays every answer (the throughput bench uses 100 ms)."""

    def __init__(self, responder: Responder, *, latency_s: float = 0.0) -> None:
        self.responder = responder
        self.latency_s = latency_s
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._seen: Counter[bytes] = Counter()
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    # -- inspection --------------------------------------------------------------------------------------------
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._seen.clear()

    # -- serving -----------------------------------------------------------------------------------------------
    def _record(self, method: str, path: str, headers: Mapping[str, str], raw: bytes) -> RecordedRequest:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        with self._lock:
            self._seen[raw] += 1
            request = RecordedRequest(
                index=len(self.requests),
                method=method,
                path=path,
                headers={name.lower(): value for name, value in headers.items()},
                body=body,
                raw_body=raw,
                attempt=self._seen[raw],
                received_at=time.monotonic(),
            )
            self.requests.append(request)
        return request

    def _answer(self, request: RecordedRequest) -> tuple[int, dict[str, str], bytes, float]:
        """Status, headers, body and delay for one request (the responder's reply, normalised)."""
        if not request.path.endswith("/chat/completions"):
            return 404, {}, b'{"error": {"message": "not found", "type": "invalid_request_error"}}', 0.0
        try:
            reply = self.responder(request)
        except Exception as exc:  # a broken responder is a 500 the test can see, not a hung client
            message = json.dumps({"error": {"message": f"responder failed: {exc!r}", "type": "server_error"}})
            return 500, {}, message.encode(), 0.0
        if isinstance(reply, str):
            reply = Reply(content=reply)
        if isinstance(reply, dict):
            return 200, {}, json.dumps(reply).encode(), self.latency_s
        delay = self.latency_s + reply.delay_s
        if reply.body is not None:
            return reply.status, dict(reply.headers), reply.body, delay
        if reply.status != 200:
            error = {"error": {"message": f"fake status {reply.status}", "type": "fake_error", "code": None}}
            return reply.status, dict(reply.headers), json.dumps(error).encode(), delay
        content = reply.content or ""
        usage = (reply.usage or estimate_usage(request, content)) if reply.include_usage else None
        body = completion_body(content, request.model, usage)
        return 200, dict(reply.headers), json.dumps(body).encode(), delay

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: tests read `fake.requests`, not the log."""

            def setup(self) -> None:
                super().setup()
                # Without TCP_NODELAY, Nagle + delayed ACK add ~40 ms to every keep-alive answer.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                request = fake._record(self.command, self.path, dict(self.headers.items()), raw)
                status, headers, body, delay = fake._answer(request)
                if delay > 0 and fake._closing.wait(delay):
                    return
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self._headers_buffer.append(b"\r\n" + body)  # headers and body in one send
                    self.wfile.write(b"".join(self._headers_buffer))
                    self._headers_buffer = []
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up (its timeout fired): that is the scripted behaviour, not a failure.
                    self.close_connection = True

            def do_POST(self) -> None:
                self._serve()

            def do_GET(self) -> None:
                self._serve()

        return Handler
