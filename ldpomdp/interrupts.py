"""Stopping a long run (a sweep, a solve) cleanly: SIGTERM, as ``kill PID`` sends it, handled as Ctrl-C is."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["sigterm_as_interrupt", "signals_deferred"]


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises ``KeyboardInterrupt("SIGTERM")`` as Ctrl-C would.

    So what the run saved stays saved, its temporary files are removed and its resume hint printed. Only in the
    main thread, and only if SIGTERM still has its default action.
    """
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt("SIGTERM")

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """While inside, Ctrl-C and SIGTERM wait: the first is delivered on leaving, to the handler it had.

    So a file write they would cut short (leaving zipfile's half-closed archive to complain at exit) finishes
    first. Only in the main thread (where Python runs signal handlers).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = [signal.getsignal(s) for s in held]
    for s in held:
        signal.signal(s, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for s, handler in zip(held, previous, strict=True):
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
        if caught:
            signal.raise_signal(caught[0])
