"""Judge settings and the one place that talks HTTP: the `openai` SDK against any OpenAI-compatible endpoint.

Retries are the SDK's own (checked in openai's `_base_client`: it retries 408/409/429/5xx, timeouts and
connection errors with exponential backoff and jitter and honours `Retry-After`/`retry-after-ms`), so this module
never retries a transport failure itself — that would multiply the attempts. It only counts them, through httpx
event hooks (statuses, and the SDK's `x-stainless-retry-count` header), so a run can report how many 429s, 5xx
and timeouts it absorbed.
"""

from __future__ import annotations

import ipaddress
import json
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from core import secrets
from core.errors import JudgeError, TransientFailure, redact_url
from core.judge.cache import DEFAULT_CACHE_PATH
from core.judge.metrics import METRICS
from core.judge.prompts import Scale, parse_criteria, parse_scale

if TYPE_CHECKING:
    from core.config import JudgeConfig

NO_KEY = "no-key-needed"


@dataclass(frozen=True)
class JudgeSettings:
    """Everything a judge run needs, resolved from `[judge]` config plus command-line overrides."""

    model: str = "gpt-4o-mini"
    teacher_model: str = "gpt-4o"
    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    criteria: tuple[str, ...] = ("accuracy", "completeness", "conciseness")
    scale: str = "0-1"
    samples: int = 3
    budget_usd: float | None = 2.50
    prices: Mapping[str, Sequence[float]] = field(default_factory=dict)
    free: bool = False
    concurrency: int = 8
    weight: float = 0.5
    metric: str = "rouge1"
    temperature: float = 0.0
    max_tokens: int = 1024
    max_retries: int = 5
    timeout_s: float = 120.0
    cache_path: Path | None = DEFAULT_CACHE_PATH
    structured_output: bool = True

    def __post_init__(self) -> None:
        parse_scale(self.scale)
        if not self.criteria:
            raise JudgeError("the judge needs at least one criterion")
        if self.samples < 1:
            raise JudgeError(f"judge samples must be at least 1, got {self.samples}")
        if self.concurrency < 1:
            raise JudgeError(f"judge concurrency must be at least 1, got {self.concurrency}")
        if not 0.0 <= self.weight <= 1.0:
            raise JudgeError(f"judge weight must be within [0, 1], got {self.weight}")
        if self.budget_usd is not None and self.budget_usd < 0:
            raise JudgeError(f"judge budget must not be negative, got {self.budget_usd}")
        if self.metric not in METRICS:
            raise JudgeError(
                f"unknown deterministic metric {self.metric!r}: expected one of {', '.join(METRICS)}"
            )
        if self.max_tokens < 1 or self.max_retries < 0 or self.timeout_s <= 0:
            raise JudgeError("judge max_tokens must be >= 1, max_retries >= 0 and timeout_s > 0")

    @property
    def scale_spec(self) -> Scale:
        return parse_scale(self.scale)

    @classmethod
    def from_config(cls, config: JudgeConfig, **overrides: Any) -> JudgeSettings:
        """Settings from `[judge]`; `overrides` with a None value keep the config's value."""
        base = cls(
            model=config.model,
            teacher_model=config.teacher_model,
            base_url=config.base_url,
            api_key_env=config.api_key_env,
            criteria=parse_criteria(config.criteria),
            scale=config.scale,
            samples=config.samples,
            budget_usd=config.budget_usd,
            prices={name: tuple(pair) for name, pair in config.prices.items()},
            free=config.free,
            concurrency=config.concurrency,
            weight=config.weight,
        )
        given = {key: value for key, value in overrides.items() if value is not None}
        if isinstance(given.get("criteria"), str):
            given["criteria"] = parse_criteria(given["criteria"])
        return replace(base, **given)


def is_loopback(base_url: str) -> bool:
    host = urlparse(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_api_key(settings: JudgeSettings) -> str:
    """The key from `api_key_env`; a free or loopback endpoint may go without one."""
    key = secrets.get(settings.api_key_env).strip()
    if key:
        return key
    if settings.free or (settings.base_url and is_loopback(settings.base_url)):
        return NO_KEY
    raise JudgeError(
        f"the judge needs an API key: set the environment variable {settings.api_key_env} "
        "(or, for a free local endpoint, set judge.free = true / pass --free)"
    )


@dataclass(frozen=True)
class ChatAnswer:
    """One completed call. `content` is None when the body could not be read (`problem` says why)."""

    content: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    problem: str | None = None


@dataclass
class TransportStats:
    """What the HTTP layer saw: attempts sent, answers by status, and attempts that got no answer."""

    attempts: int = 0
    retries: int = 0
    statuses: Counter[int] = field(default_factory=Counter)

    @property
    def no_answer(self) -> int:
        return self.attempts - sum(self.statuses.values())

    @property
    def rate_limited(self) -> int:
        return self.statuses[429]

    @property
    def server_errors(self) -> int:
        return sum(count for status, count in self.statuses.items() if status >= 500)


class ChatClient:
    """A thread-safe chat-completions caller with structured output when the endpoint accepts it."""

    def __init__(self, settings: JudgeSettings) -> None:
        import openai

        self.settings = settings
        self.stats = TransportStats()
        self._lock = threading.Lock()
        self._structured = settings.structured_output
        http_client = openai.DefaultHttpxClient(
            event_hooks={"request": [self._on_request], "response": [self._on_response]}
        )
        self._client = openai.OpenAI(
            api_key=resolve_api_key(settings),
            base_url=settings.base_url or None,
            max_retries=settings.max_retries,
            timeout=settings.timeout_s,
            http_client=http_client,
        )

    @property
    def base_url(self) -> str:
        return str(self._client.base_url)

    def _on_request(self, request: Any) -> None:
        # The SDK numbers its attempts in this header; anything but "0" is one of its retries.
        retry = request.headers.get("x-stainless-retry-count", "0") not in ("", "0")
        with self._lock:
            self.stats.attempts += 1
            self.stats.retries += int(retry)

    def _on_response(self, response: Any) -> None:
        with self._lock:
            self.stats.statuses[int(response.status_code)] += 1

    def close(self) -> None:
        self._client.close()

    def _refused(self, what: str, exc: BaseException, model: str) -> JudgeError:
        """A request the endpoint will never take: one line naming the endpoint (redacted) and its HTTP status."""
        url = redact_url(self.base_url)
        status = getattr(exc, "status_code", None)
        return JudgeError(
            f"{url}: {what} ({_describe(exc)})",
            url=url,
            status=status if isinstance(status, int) else None,
            model=model,
        )

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        model: str,
        params: Mapping[str, Any],
        schema_name: str,
        schema: Mapping[str, Any],
    ) -> ChatAnswer:
        """One chat completion. Raises TransientFailure or JudgeError (a request the endpoint will never take)."""
        import openai

        structured = self._structured
        request: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages], **params}
        if structured:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "strict": True, "schema": dict(schema)},
            }
        try:
            # `client.post` (the SDK's documented way to call any endpoint) keeps its retries and error types but
            # skips the typed request transform, which cost more CPU than the rest of a call (see bench/).
            text = self._client.post("/chat/completions", body=request, cast_to=str)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            if structured:
                # Many OpenAI-compatible servers reject json_schema; fall back to tolerant parsing for good.
                with self._lock:
                    self._structured = False
                return self.complete(
                    messages, model=model, params=params, schema_name=schema_name, schema=schema
                )
            raise self._refused("the endpoint refused the request", exc, model) from None
        except openai.AuthenticationError as exc:
            raise self._refused(
                f"the endpoint refused the API key from {self.settings.api_key_env}", exc, model
            ) from None
        except (openai.PermissionDeniedError, openai.NotFoundError) as exc:
            raise self._refused(f"model {model!r} is not available", exc, model) from None
        except (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError) as exc:
            raise TransientFailure(_describe(exc)) from None
        except openai.APIStatusError as exc:
            if exc.status_code in (408, 409) or exc.status_code >= 500:
                raise TransientFailure(_describe(exc)) from None
            raise self._refused("the endpoint refused the request", exc, model) from None
        except openai.APIConnectionError as exc:
            url = redact_url(self.base_url)
            raise JudgeError(
                f"cannot reach the judge endpoint {url}: {_describe(exc)}", url=url, model=model
            ) from None
        except openai.OpenAIError as exc:
            raise self._refused("the request failed", exc, model) from None
        return read_completion(text)


def read_completion(text: str) -> ChatAnswer:
    """The assistant's content and the usage from a chat-completion body; a body that is not one is a problem
    the caller retries once, like an unparseable verdict."""
    try:
        body = json.loads(text)
    except ValueError:
        return ChatAnswer(None, None, None, "malformed response body (not JSON)")
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return ChatAnswer(None, None, None, "the response has no choices[0].message.content")
    if not isinstance(content, str):
        return ChatAnswer(None, None, None, "the response's message content is not text")
    usage = body.get("usage") if isinstance(body, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    prompt_tokens, completion_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return ChatAnswer(
        content,
        prompt_tokens if isinstance(prompt_tokens, int) and not isinstance(prompt_tokens, bool) else None,
        completion_tokens
        if isinstance(completion_tokens, int) and not isinstance(completion_tokens, bool)
        else None,
    )


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"HTTP {status}: {message}" if status else f"{type(exc).__name__}: {message}"


def sampling_params(model: str, *, temperature: float, max_tokens: int) -> dict[str, Any]:
    """Sampling parameters as the model family wants them (reasoning models take no temperature)."""
    name = model.rsplit("/", 1)[-1]
    if name.startswith(("o1", "o3", "o4", "gpt-5")):
        return {"max_completion_tokens": max_tokens}
    return {"temperature": temperature, "max_tokens": max_tokens}
