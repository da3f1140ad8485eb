"""The process-wide memo caches, one mechanism, and the folder of the solvers' disk cache.

The memo caches (docs/design.md, "Caches"): ``memo`` (an ``lru_cache``),
``bounded_cache`` (a ``BoundedCache``, for a cache that keeps its own keys) and ``register_cache`` (a
dict that keeps its own eviction); ``cache_sizes`` lists them, ``clear_caches`` empties them all; and
``cache_dir``, where the solvers keep what they solved on disk.

A cached value is shared by every caller of the process: arrays in caches are read-only, no caller may change
what it gets, and caches hold derived data only, so clearing them never changes a result. Standard library only.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar, cast

__all__ = ["memo", "BoundedCache", "bounded_cache", "register_cache", "clear_caches", "cache_sizes", "cache_dir"]

F = TypeVar("F", bound=Callable[..., Any])
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D", bound=dict)
_CACHES: dict[str, Any] = {}  # qualified name -> lru_cache wrapper or registered dict


def memo(maxsize: int | None = 128) -> Callable[[F], F]:
    """``functools.lru_cache`` with ``maxsize``, recorded so that ``clear_caches`` reaches it."""
    def wrap(function: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _CACHES[f"{function.__module__}.{function.__qualname__}"] = cached
        return cast(F, cached)  # the wrapper takes and returns what ``function`` does
    return wrap


class BoundedCache(OrderedDict[K, V]):
    """A dict of at most ``maxsize`` entries, safe to share between threads: storing a new key when full drops the
    least recently used entry (read with ``lookup``, which counts as a use)."""

    def __init__(self, maxsize: int):
        super().__init__()
        self.maxsize = maxsize
        self._lock = threading.Lock()

    def lookup(self, key: K) -> V | None:
        """The value stored under ``key`` (None if none), now the most recently used."""
        with self._lock:
            if key not in self:
                return None
            self.move_to_end(key)
            return super().__getitem__(key)

    def __reduce__(self) -> tuple[type, tuple[int]]:
        """Copied or pickled empty: its entries are recomputed on use, and its lock cannot be copied."""
        return type(self), (self.maxsize,)

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            super().__setitem__(key, value)
            self.move_to_end(key)
            while len(self) > self.maxsize:
                self.popitem(last=False)


def bounded_cache(name: str, maxsize: int) -> BoundedCache[Any, Any]:
    """A ``BoundedCache`` of ``maxsize`` entries, registered under ``name`` (e.g. ``"module.variable"``)."""
    return register_cache(name, BoundedCache(maxsize))


def register_cache(name: str, cache: D) -> D:
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


def cache_dir() -> Path:
    """Where solved rounds and tables are stored: ``$LDPOMDP_CACHE``, else ``$XDG_CACHE_HOME/ldpomdp`` or
    ``~/.cache/ldpomdp``."""
    if os.environ.get("LDPOMDP_CACHE"):
        return Path(os.environ["LDPOMDP_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ldpomdp"
