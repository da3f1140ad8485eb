"""Stopping a long run (a sweep, a solve) cleanly: SIGTERM, as ``kill PID`` sends it, handled as Ctrl-C is."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["sigterm_as_interrupt"]


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises ``KeyboardInterrupt("SIGTERM")`` as Ctrl-C would (so what the run saved stays
    saved, its temporary files are removed and its resume hint printed). Only in the main thread, and only if
    SIGTERM still has its default action."""
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
