"""The process-wide memo caches, one mechanism: every module-level cache of the package is a
:func:`functools.lru_cache` made with :func:`memo`, or a dict registered with :func:`register_cache` (for a cache that
keeps its own keys or eviction). :func:`cache_sizes` lists them, :func:`clear_caches` empties them all (e.g. to
free memory, or between timings).

A cached value is shared by every caller of the process: arrays in caches are read-only, and no caller may
change what it gets. Caches hold derived data only (what a function of its arguments returns), so clearing them
never changes a result. Solved rounds cached on disk are :mod:`ldpomdp.exact.nash`'s (``LDPOMDP_CACHE``).

Only the standard library is imported here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["memo", "register_cache", "clear_caches", "cache_sizes"]

F = TypeVar("F", bound=Callable[..., Any])
_CACHES: dict[str, Any] = {}  # qualified name -> lru_cache wrapper or registered dict


def memo(maxsize: int | None = 128) -> Callable[[F], F]:
    """:func:`functools.lru_cache` with ``maxsize``, recorded so that :func:`clear_caches` reaches it."""
    def wrap(function: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _CACHES[f"{function.__module__}.{function.__qualname__}"] = cached
        return cast(F, cached)  # the wrapper takes and returns what ``function`` does
    return wrap


def register_cache(name: str, cache: dict) -> dict:
    """Record the dict ``cache`` under ``name`` (e.g. ``"module.variable"``) and return it."""
    _CACHES[name] = cache
    return cache


def clear_caches() -> None:
    """Empty every memo cache of the process."""
    for cache in _CACHES.values():
        if isinstance(cache, dict):
            cache.clear()
        else:
            cache.cache_clear()


def cache_sizes() -> dict[str, int]:
    """Entries held now by each cache, by qualified name (the modules imported so far)."""
    return {name: len(cache) if isinstance(cache, dict) else cache.cache_info().currsize
            for name, cache in sorted(_CACHES.items())}
