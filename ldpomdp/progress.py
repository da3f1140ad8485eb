"""Work that takes more than a moment says so: one line (what, why, about how long, where it goes), then progress.

In a terminal the line goes to stderr with a tqdm bar under it; where a listener is installed (``listening``: the
web page's "preparing" state) the listener gets the line and the progress instead."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["Preparing", "Listener", "listening", "preparing"]


@dataclass
class Preparing:
    """Work under way: its one-line ``line``, ``done`` of ``total`` steps."""

    line: str
    total: int
    done: int = 0


Listener = Callable[[Preparing], None]
_LISTENER: ContextVar[Listener | None] = ContextVar("ldpomdp_progress_listener", default=None)


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Within the block (in this thread or task), ``preparing`` tells ``listener`` instead of the terminal: at the
    start, after each step and at the end (``done == total``)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


@contextmanager
def preparing(line: str, total: int) -> Iterator[Callable[[int], None]]:
    """Say ``line`` and show progress over ``total`` steps; yields ``advance(n)``, called after n more steps."""
    listener = _LISTENER.get()
    if listener is None:
        from tqdm import tqdm

        print(f"ldpomdp: {line}", file=sys.stderr, flush=True)
        with tqdm(total=total, unit="it", file=sys.stderr, dynamic_ncols=True, leave=False) as bar:
            yield bar.update
        return
    state = Preparing(line, total)
    listener(state)

    def advance(n: int) -> None:
        state.done = min(state.total, state.done + n)
        listener(state)

    yield advance
    state.done = state.total
    listener(state)
