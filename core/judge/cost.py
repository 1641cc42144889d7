"""Prices and the hard budget (SPEC §7 Cost).

Every call reserves a worst case before it starts and is reconciled with the usage the endpoint reports after
it ends. While spent + reserved + the next reservation would pass the cap, no new call starts: the cap holds even
with eight calls in flight, and even against an endpoint that bills far above the estimate (the first call is
priced alone, and later reservations are scaled by the observed billing ratio). The worst case for the prompt counts one token per UTF-8 byte (a byte-level BPE
token always covers at least one byte) plus per-message overhead, and `max_tokens` for the answer.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import JudgeError

# USD per 1M tokens (input, output), list prices of the providers' standard tiers. `[judge] prices` overrides.
BUILTIN_PRICES: dict[str, tuple[float, float]] = {
    "gpt-3.5-turbo": (0.50, 1.50),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "o1": (15.00, 60.00),
    "o1-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
}

_SNAPSHOT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{4}|latest)$")


@dataclass(frozen=True)
class Price:
    input_per_m: float
    output_per_m: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_m + completion_tokens * self.output_per_m) / 1_000_000


FREE = Price(0.0, 0.0)


def _candidates(model: str) -> list[str]:
    """The model name, without a provider prefix, without a dated snapshot suffix (`gpt-4o-2024-08-06`)."""
    names = [model]
    if "/" in model:
        names.append(model.rsplit("/", 1)[1])
    names += [_SNAPSHOT.sub("", name) for name in names]
    return list(dict.fromkeys(names))


def lookup_price(model: str, overrides: Mapping[str, Sequence[float]] | None = None) -> Price | None:
    """The price of `model`: config overrides first, then the built-in table; None when unknown.

    Only exact names and dated snapshots of them match — never a loose prefix, so `o3-pro` is not priced
    as `o3` (an unknown price must fail closed, not guess low).
    """
    for name in _candidates(model):
        if overrides and name in overrides:
            pair = overrides[name]
            return Price(float(pair[0]), float(pair[1]))
    for name in _candidates(model):
        if name in BUILTIN_PRICES:
            return Price(*BUILTIN_PRICES[name])
    return None


def price_for(model: str, overrides: Mapping[str, Sequence[float]] | None, *, free: bool) -> Price:
    """The price to charge, or JudgeError when the model is unpriced and the endpoint is not declared free."""
    if free:
        return FREE
    price = lookup_price(model, overrides)
    if price is None:
        raise JudgeError(
            f"no price known for model {model!r}: add it to proctor.toml as [judge] prices = "
            f'{{"{model}" = [usd_per_1M_input, usd_per_1M_output]}}, or declare a free endpoint (judge.free / --free)',
            model=model,
        )
    return price


def worst_case_prompt_tokens(messages: Sequence[Mapping[str, str]], extra: Any = None) -> int:
    """An upper bound on the prompt tokens of `messages` (plus a response-format schema, which is billed too)."""
    size = sum(len(str(m.get("content", "")).encode("utf-8")) + 8 for m in messages) + 16
    if extra is not None:
        size += len(json.dumps(extra).encode("utf-8"))
    return size


@dataclass(frozen=True)
class Reservation:
    """What one call holds: `amount` (the estimate scaled by the observed billing ratio) and the raw estimate."""

    amount: float
    estimate: float = 0.0


class Budget:
    """A thread-safe hard cap in USD with reserve-then-reconcile accounting.

    A reservation that does not fit while other calls are in flight waits for them to reconcile (their real
    cost is usually far below the worst case); the budget is exhausted only when a reservation does not fit
    with nothing in flight. Reservations are granted first come, first served, so items finish in order.

    An endpoint may bill far more than the estimate (another tokenizer, hidden reasoning tokens, a proxy's
    markup). So the estimate is never trusted blind: until a call has been priced — and again after any reply
    cost more than it held — only one call is in flight, and every reservation is the estimate times the
    highest ratio of billed to estimated cost seen so far.
    """

    def __init__(self, cap_usd: float | None) -> None:
        self.cap_usd = cap_usd
        self.spent_usd = 0.0
        self.reserved_usd = 0.0
        self.exhausted = False
        self.ratio = 1.0
        # One call at a time until a reply has been priced within its reservation (no cap: nothing to hold).
        self._probing = cap_usd is not None
        self._in_flight = 0
        self._next_ticket = 0
        self._serving = 0
        self._changed = threading.Condition()

    def reserve(self, amount: float) -> Reservation | None:
        """Hold `amount` (scaled by the billing ratio) for one call, or None (and mark the budget exhausted)
        when it can never fit."""
        with self._changed:
            ticket = self._next_ticket
            self._next_ticket += 1
            try:
                while True:
                    if self.exhausted:
                        return None
                    if ticket == self._serving and not (self._probing and self._in_flight > 0):
                        held = amount * self.ratio
                        if self._fits(held) or amount <= 0:
                            self.reserved_usd += held
                            self._in_flight += 1
                            return Reservation(held, amount)
                        if self._in_flight == 0:
                            self.exhausted = True
                            return None
                    self._changed.wait(timeout=1.0)
            finally:
                if ticket == self._serving:
                    self._serving += 1
                self._changed.notify_all()

    def _fits(self, held: float) -> bool:
        return self.cap_usd is None or self.spent_usd + self.reserved_usd + held <= self.cap_usd

    def reconcile(self, reservation: Reservation, actual: float) -> None:
        """Replace the held amount by what the call really cost; learn the billing ratio from it."""
        with self._changed:
            self._settle(reservation, actual)
            if reservation.estimate > 0:
                self.ratio = max(self.ratio, actual / reservation.estimate)
            self._probing = self.cap_usd is not None and actual > reservation.amount * (1 + 1e-9)
            self._changed.notify_all()

    def release(self, reservation: Reservation) -> None:
        """Free the hold of a call that got no answer (nothing billed, nothing learnt)."""
        with self._changed:
            self._settle(reservation, 0.0)
            self._changed.notify_all()

    def _settle(self, reservation: Reservation, actual: float) -> None:
        self.reserved_usd = max(0.0, self.reserved_usd - reservation.amount)
        self._in_flight -= 1
        self.spent_usd += actual

    @property
    def remaining_usd(self) -> float | None:
        with self._changed:
            return None if self.cap_usd is None else max(0.0, self.cap_usd - self.spent_usd)
