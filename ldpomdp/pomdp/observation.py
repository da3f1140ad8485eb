"""What the planner observes after each of its actions."""

from __future__ import annotations

import pomdp_py

from ..rules import Action

__all__ = ["LDObservation"]


class LDObservation(pomdp_py.Observation):
    """What the planner sees between two of its actions, and how the round ended once a call ended it.

    ``seen``: the other players' ``(seat, action)`` pairs between two of the planner's actions; once a call ended the
    round, ``loser``, the seat that lost dice (-1 while it goes on or when nobody lost), and under the rules settled
    by the count ``end``, the index of its end in ``round_ends`` (else -1), as in ``LDState``. The revealed hands are
    left out: the round's POMDP ends there, so they would only multiply the tree's branches."""

    def __init__(self, seen: tuple[tuple[int, Action], ...], loser: int = -1, end: int = -1):
        self.seen = seen
        self.loser = loser
        self.end = end
        self._hash = hash((seen, end if end >= 0 else loser))

    @property
    def over(self) -> bool:
        """Whether a call ended the round."""
        return self.loser >= 0 or self.end >= 0

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, LDObservation) and self.loser == other.loser
                                 and self.end == other.end and self.seen == other.seen)

    def __deepcopy__(self, memo) -> LDObservation:
        return self

    def __repr__(self) -> str:
        acts = " ".join(f"{s}:{a}" for s, a in self.seen) or "-"
        ending = (f", loser {self.loser}" + (f", end {self.end}" if self.end >= 0 else "")) if self.over else ""
        return f"LDObservation([{acts}]{ending})"
