"""Handlers that never raise to the client (SPEC §8): a failure is logged and the feature answers a default."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["never_raises"]

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


def never_raises(default: Any = None) -> Callable[[F], F]:
    """Log a handler's exception and return `default`: one broken feature never pops up an error per
    keystroke, and the other features keep working (esbonio's `call_features`)."""

    def decorate(func: F) -> F:
        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await func(*args, **kwargs)
                except Exception:
                    log.exception("%s failed", func.__name__)
                    return default

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except Exception:
                log.exception("%s failed", func.__name__)
                return default

        return wrapper  # type: ignore[return-value]

    return decorate
