"""What the planner observes after each of its actions."""

from __future__ import annotations

import pomdp_py

from ..rules import Action

__all__ = ["LDObservation"]


class LDObservation(pomdp_py.Observation):
    """``seen``: the other players' ``(seat, action)`` pairs between two of the planner's actions;
    ``loser``: the seat that lost the die when the round ended (-1 while it goes on). The revealed hands are
    left out: the round's POMDP ends there, so they would only multiply the tree's branches."""

    def __init__(self, seen: tuple[tuple[int, Action], ...], loser: int = -1):
        self.seen = seen
        self.loser = loser
        self._hash = hash((seen, loser))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, LDObservation) and self.loser == other.loser and self.seen == other.seen
        )

    def __deepcopy__(self, memo) -> LDObservation:
        return self

    def __repr__(self) -> str:
        acts = " ".join(f"{s}:{a}" for s, a in self.seen) or "-"
        return f"LDObservation([{acts}]" + (f", loser {self.loser})" if self.loser >= 0 else ")")
