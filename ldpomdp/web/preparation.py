"""Work a game may need before it can go on (a seat's reset solving a table, the hint's agent built), in a thread.

The work runs under ``ldpomdp.progress.listening``: what ``preparing`` says (its line, done of total) is kept for the
page to poll. The request that starts the work waits only until the work says it is preparing or has finished, so a
solve never holds a request, and a session preparing never holds another's."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from ..progress import Preparing, listening

__all__ = ["Preparation"]

T = TypeVar("T")


class Preparation(Generic[T]):
    """``work`` run in a thread of its own: ``progress``, the latest it said; once ``finished``, its ``result`` or
    the ``error`` it raised."""

    def __init__(self, work: Callable[[], T]):
        self.progress: Preparing | None = None
        self.result: T | None = None
        self.error: Exception | None = None
        self._finished, self._heard = threading.Event(), threading.Event()
        threading.Thread(target=self._run, args=(work,), name="ldpomdp-preparing", daemon=True).start()

    @property
    def finished(self) -> bool:
        """Whether the work has returned or raised."""
        return self._finished.is_set()

    def wait(self) -> bool:
        """Wait until the work says it is preparing (``preparing``) or finishes; whether it has finished."""
        self._heard.wait()
        return self.finished

    def view(self) -> dict:
        """What is being prepared, for the page: its ``line``, ``done`` steps of ``total``."""
        now = self.progress
        if now is None:
            return {"line": "getting ready", "done": 0, "total": 0}
        return {"line": now.line, "done": now.done, "total": now.total}

    def _run(self, work: Callable[[], T]) -> None:
        try:
            with listening(self._hear):
                self.result = work()
        except Exception as exc:  # the request that looks next raises it (a refusal: 400; a bug: 500, logged)
            self.error = exc
        finally:
            self._finished.set()
            self._heard.set()

    def _hear(self, state: Preparing) -> None:
        self.progress = dataclasses.replace(state)  # a copy: the work goes on changing its own
        self._heard.set()
