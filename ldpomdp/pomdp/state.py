"""The hidden state of one round as seen by the planning player: every hand, the public bidding so far,
whose turn it is, and (once a challenge ended the round) who lost the die."""

from __future__ import annotations

from typing import Any

import pomdp_py

from ..rules import Action, Bid
from .action import LDAction
from .observation import LDObservation

__all__ = ["LDState"]


class LDState(pomdp_py.State):
    """One state of the round; immutable.

    ``hands``: one face-count tuple per seat; ``dice``: per seat; ``history``: this round's ``(seat, bid)`` pairs;
    ``turn``: the seat to act (once the round is over: its challenger); ``loser``: the seat that lost a die, -1 while
    the round goes on; ``seen``: the other players' ``(seat, action)`` since the planner's last action, what it observes
    next; ``round_index``: the round's number in its game, from 0.
    """

    def __init__(
        self,
        hands: tuple[tuple[int, ...], ...],
        dice: tuple[int, ...],
        history: tuple[tuple[int, Bid], ...],
        turn: int,
        loser: int = -1,
        seen: tuple[tuple[int, Action], ...] = (),
        round_index: int = 0,
    ):
        self.hands = hands
        self.dice = dice
        self.history = history
        self.turn = turn
        self.loser = loser
        self.seen = seen
        self.round_index = round_index
        self._hash: int | None = None
        # cache: the interned PublicNode of ``history``, set by the transition model (typed Any: models.py, which
        # defines PublicNode, imports this module)
        self.public: Any = None
        self.observation: LDObservation | None = None  # cache: what the planner observes on reaching this state
        self.after: dict[LDAction, LDState] | None = None  # cache: {action: next state} of the transitions that
        # drew no random number

    @property
    def bid(self) -> Bid | None:
        """The standing bid (None before the opening bid)."""
        return self.history[-1][1] if self.history else None

    @property
    def terminal(self) -> bool:
        """True once the round is over (absorbing)."""
        return self.loser >= 0

    def _key(self) -> tuple:
        return (self.hands, self.dice, self.history, self.turn, self.loser, self.seen, self.round_index)

    def __hash__(self) -> int:  # cheap (particle sets hash every state); equality compares everything
        if self._hash is None:
            self._hash = hash((self.hands, len(self.history), self.turn, self.loser))
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, LDState) and self._key() == other._key())

    def __deepcopy__(self, memo) -> LDState:  # immutable: pomdp-py deep-copies beliefs of states
        return self

    def __repr__(self) -> str:
        bids = " ".join(f"{s}:{a}" for s, a in self.history) or "-"
        end = f", loser {self.loser}" if self.loser >= 0 else f", seat {self.turn} to act"
        return f"LDState(hands={self.hands}, bids [{bids}]{end})"
