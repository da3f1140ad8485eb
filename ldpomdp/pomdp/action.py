"""The planner's actions: a bid, a challenge, or the one dummy action of a finished round."""

from __future__ import annotations

import threading

import pomdp_py

from ..rules import CHALLENGE, EXACT, Action

__all__ = ["LDAction", "END"]


class LDAction(pomdp_py.Action):
    """Wraps a rules action (``Bid``, ``CHALLENGE`` or ``EXACT``); ``move`` None is the dummy action after the round.

    Interned: ``LDAction(move)`` returns the one instance for ``move`` (also after pickling), so equality is
    identity and the hash is CPython's C-level one: search trees look actions up millions of times. Thread-safe:
    planners searching in several threads at once (``ldpomdp serve``) share the one instance per move.
    """

    _interned: dict = {}
    _interning = threading.Lock()

    def __new__(cls, move: Action | None):
        action = cls._interned.get(move)
        if action is None:
            with cls._interning:  # checked again inside: another thread may have made it meanwhile
                action = cls._interned.get(move)
                if action is None:
                    action = super().__new__(cls)
                    action.move = move
                    cls._interned[move] = action
        return action

    def __init__(self, move: Action | None):  # state is set once, in __new__
        pass

    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__

    def __deepcopy__(self, memo) -> LDAction:
        return self

    def __reduce__(self):
        return (LDAction, (self.move,))

    def __repr__(self) -> str:
        if self.move is CHALLENGE or self.move is EXACT:
            return str(self.move)
        return "END" if self.move is None else f"bid {self.move}"


END = LDAction(None)
