"""The judge's call path: cache → budget reservation → endpoint → reconcile → parse → one repair retry.

Every question the judge asks (a single-output sample, one order of a pairwise comparison, a teacher request)
goes through `Judge.ask`, so caching, the hard budget, the parse-retry rule and the counters hold everywhere.
A `Judge` is shared by a whole run — or a whole campaign — so its budget is one cap across all of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from core.errors import AnswerError, JudgeError, TransientFailure
from core.judge.cache import CachedAnswer, JudgeCache, cache_key
from core.judge.client import ChatAnswer, ChatClient, JudgeSettings, sampling_params
from core.judge.cost import Budget, Price, price_for, worst_case_prompt_tokens
from core.judge.prompts import Message, repair_messages

T = TypeVar("T")

Status = Literal["ok", "parse_failed", "budget", "error", "stopped"]


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """What one question produced. `ok`/`parse_failed` are final; `budget`/`error`/`stopped` mean "not asked"."""

    status: Status
    value: T | None = None
    content: str | None = None
    cached: bool = False
    cost_usd: float = 0.0
    calls: int = 0
    problem: str | None = None

    @property
    def done(self) -> bool:
        return self.status in ("ok", "parse_failed")


@dataclass
class Counters:
    """Run-wide counts for the report (the transport's own counts live in `ChatClient.stats`)."""

    calls: int = 0
    cache_hits: int = 0
    parse_failures: int = 0
    repair_retries: int = 0
    transient_failures: int = 0
    usage_missing: int = 0
    last_problem: str | None = None


@dataclass(frozen=True)
class Snapshot:
    spent_usd: float
    calls: int
    cache_hits: int
    retries: int
    rate_limited: int
    server_errors: int
    no_answer: int


@dataclass(frozen=True)
class Question:
    """One thing to ask: the messages plus the parts of the cache key that are not in them."""

    messages: list[Message]
    template_version: str
    rotation: str
    sample: int
    schema_name: str
    schema: Mapping[str, Any]
    model: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None


@dataclass
class _Asking:
    """One question being asked: what every attempt sends, and what the attempts have cost so far."""

    question: Question
    model: str
    price: Price
    params: dict[str, Any]
    messages: list[Message]
    cost: float = 0.0
    calls: int = 0


@dataclass
class Judge:
    """A configured judge: settings, endpoint client, cache and one budget shared by everything it asks."""

    settings: JudgeSettings
    cache: JudgeCache | None = None
    client: ChatClient | None = None
    counters: Counters = field(default_factory=Counters)

    def __post_init__(self) -> None:
        # Fail closed before anything is sent: an unknown price is an error unless the endpoint is free.
        self.price = price_for(self.settings.model, self.settings.prices, free=self.settings.free)
        self.budget = Budget(None if self.settings.free else self.settings.budget_usd)
        if self.client is None:
            self.client = ChatClient(self.settings)
        self.stop = threading.Event()
        self._lock = threading.Lock()

    @classmethod
    @contextmanager
    def open(cls, settings: JudgeSettings, *, use_cache: bool = True) -> Iterator[Judge]:
        cache = JudgeCache(settings.cache_path) if use_cache and settings.cache_path is not None else None
        judge = cls(settings, cache=cache)
        try:
            yield judge
        finally:
            judge.close()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.cache is not None:
            self.cache.close()

    @property
    def endpoint(self) -> ChatClient:
        assert self.client is not None
        return self.client

    def price_of(self, model: str) -> Price:
        if model == self.settings.model:
            return self.price
        return price_for(model, self.settings.prices, free=self.settings.free)

    def snapshot(self) -> Snapshot:
        """Counters now, so one run of a shared judge can report its own share (a campaign judges many times)."""
        stats = self.endpoint.stats
        with self._lock:
            return Snapshot(
                spent_usd=self.budget.spent_usd,
                calls=self.counters.calls,
                cache_hits=self.counters.cache_hits,
                retries=stats.retries,
                rate_limited=stats.rate_limited,
                server_errors=stats.server_errors,
                no_answer=stats.no_answer,
            )

    def _count(self, **deltas: int) -> None:
        with self._lock:
            for name, delta in deltas.items():
                setattr(self.counters, name, getattr(self.counters, name) + delta)

    def ask(self, question: Question, parse: Callable[[str], T]) -> Outcome[T]:
        """Ask once, and once more with a repair prompt if the answer cannot be parsed."""
        model = question.model or self.settings.model
        params = sampling_params(
            model,
            temperature=self.settings.temperature if question.temperature is None else question.temperature,
            max_tokens=question.max_tokens or self.settings.max_tokens,
        )
        asking = _Asking(question, model, self.price_of(model), params, question.messages)
        problem = ""
        for attempt in (0, 1):
            key = self._key(asking)
            hit = self._from_cache(key, parse, asking)
            if hit is not None:
                return hit
            answer = self._complete(asking)
            if isinstance(answer, Outcome):
                return answer
            outcome, problem = self._parsed(answer, parse, key, asking)
            if outcome is not None:
                return outcome
            if attempt == 0:
                self._count(repair_retries=1)
                if answer.content is not None:
                    asking.messages = repair_messages(question.messages, answer.content, problem)
        with self._lock:
            self.counters.parse_failures += 1
            self.counters.last_problem = problem
        return Outcome("parse_failed", cost_usd=asking.cost, calls=asking.calls, problem=problem)

    def _key(self, asking: _Asking) -> str:
        question = asking.question
        return cache_key(
            model=asking.model,
            base_url=self.endpoint.base_url,
            messages=asking.messages,
            params=asking.params,
            template_version=question.template_version,
            rotation=question.rotation,
            sample=question.sample,
        )

    def _from_cache(self, key: str, parse: Callable[[str], T], asking: _Asking) -> Outcome[T] | None:
        """The cached answer, when there is one the parser still accepts."""
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is None:
            return None
        try:
            value = parse(hit.content)
        except AnswerError:
            return None  # stored by an older parser that accepted it; ask again
        self._count(cache_hits=1)
        return Outcome(
            "ok", value, hit.content, cached=asking.calls == 0, cost_usd=asking.cost, calls=asking.calls
        )

    def _complete(self, asking: _Asking) -> ChatAnswer | Outcome[Any]:
        """One call within the budget: the answer, or the outcome that says why no call was made."""
        if self.stop.is_set():
            return Outcome("stopped", cost_usd=asking.cost, calls=asking.calls)
        params, question = asking.params, asking.question
        max_out = int(params.get("max_tokens", params.get("max_completion_tokens", 0)))
        worst = asking.price.cost(worst_case_prompt_tokens(asking.messages, question.schema), max_out)
        reservation = self.budget.reserve(worst)
        if reservation is None:
            return Outcome("budget", cost_usd=asking.cost, calls=asking.calls, problem="budget exhausted")
        if self.stop.is_set():
            self.budget.release(reservation)
            return Outcome("stopped", cost_usd=asking.cost, calls=asking.calls)
        try:
            answer = self.endpoint.complete(
                asking.messages,
                model=asking.model,
                params=params,
                schema_name=question.schema_name,
                schema=question.schema,
            )
        except TransientFailure as exc:
            self.budget.release(reservation)
            with self._lock:
                self.counters.transient_failures += 1
                self.counters.last_problem = str(exc)
            return Outcome("error", cost_usd=asking.cost, calls=asking.calls, problem=str(exc))
        except BaseException:
            # JudgeError (a request the endpoint will never take), or Ctrl-C: free the hold, stop the run.
            self.budget.release(reservation)
            self.stop.set()
            raise
        asking.calls += 1
        self._count(calls=1)
        if answer.prompt_tokens is None or answer.completion_tokens is None:
            # No usage reported: charge the reserved worst case, so the cap still holds.
            charged = reservation.amount
            if not self.settings.free:
                self._count(usage_missing=1)
        else:
            charged = asking.price.cost(answer.prompt_tokens, answer.completion_tokens)
        self.budget.reconcile(reservation, charged)
        asking.cost += charged
        return answer

    def _parsed(
        self, answer: ChatAnswer, parse: Callable[[str], T], key: str, asking: _Asking
    ) -> tuple[Outcome[T] | None, str]:
        """The `ok` outcome of an answer that parses (cached for next time), else why it does not."""
        if answer.content is None:
            return None, answer.problem or "unreadable response"
        try:
            value = parse(answer.content)
        except AnswerError as exc:
            return None, str(exc)
        if self.cache is not None:
            cached = CachedAnswer(answer.content, answer.prompt_tokens or 0, answer.completion_tokens or 0)
            self.cache.put(key, asking.model, cached)
        return Outcome("ok", value, answer.content, cost_usd=asking.cost, calls=asking.calls), ""

    def ask_many(
        self,
        questions: Sequence[tuple[Question, Callable[[str], Any]]],
        *,
        on_done: Callable[[int, Outcome[Any]], None] | None = None,
    ) -> list[Outcome[Any]]:
        """Ask in order with bounded concurrency; a JudgeError stops new calls and is raised after the rest end."""
        from concurrent.futures import ThreadPoolExecutor, as_completed

        results: list[Outcome[Any] | None] = [None] * len(questions)
        failure: JudgeError | None = None
        pool = ThreadPoolExecutor(max_workers=self.settings.concurrency, thread_name_prefix="judge")
        try:
            futures = {pool.submit(self.ask, q, parse): index for index, (q, parse) in enumerate(questions)}
            for future in as_completed(futures):
                index = futures[future]
                try:
                    outcome = future.result()
                except JudgeError as exc:
                    failure = failure or exc
                    self.stop.set()
                    continue
                results[index] = outcome
                if on_done is not None:
                    on_done(index, outcome)
        except BaseException:
            # Ctrl-C: start nothing new; the calls in flight end on their own (their answers are cached).
            self.stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        if failure is not None:
            raise failure
        return [r if r is not None else Outcome("stopped") for r in results]
