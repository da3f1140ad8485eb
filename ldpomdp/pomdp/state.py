"""The hidden state of one round as seen by the planning player: every hand, the public bidding so far,
whose turn it is, and (once a call ended the round) who lost and how it ended."""

from __future__ import annotations

from typing import Any

import pomdp_py

from ..rules import Action, Bid
from .action import LDAction
from .observation import LDObservation

__all__ = ["LDState"]


class LDState(pomdp_py.State):
    """One state of the round; immutable (its fields are commented in ``__init__``).

    The round is over (``terminal``) once it has a ``loser`` or, under the rules settled by the count
    (``settled_by_count``), an ``end``; ``outcome`` is the one of them that the reward model's
    outcomes are keyed by: ``end`` under those rules, else ``loser`` (-1 while the round goes on).
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
        end: int = -1,
    ):
        self.hands = hands  # one face-count tuple per seat
        self.dice = dice  # dice per seat
        self.history = history  # this round's bids, (seat, bid) pairs
        self.turn = turn  # the seat to act (once the round is over: its caller)
        self.loser = loser  # the seat that lost dice, -1 while the round goes on or nobody lost (a right exact call)
        self.seen = seen  # the others' (seat, action) since the planner's last action: what it observes next
        self.round_index = round_index  # the round's number in its game, from 0
        self.end = end  # under the rules settled by the count, the index of the round's end in round_ends; else -1
        self.outcome = end if end >= 0 else loser  # the round's end as the reward model's outcomes key it (-1: on)
        self.terminal = self.outcome >= 0  # the round is over (absorbing)
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

    def _key(self) -> tuple:
        return (self.hands, self.dice, self.history, self.turn, self.loser, self.end, self.seen, self.round_index)

    def __hash__(self) -> int:  # cheap (particle sets hash every state); equality compares everything
        if self._hash is None:
            self._hash = hash((self.hands, len(self.history), self.turn, self.outcome))
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, LDState) and self._key() == other._key())

    def __deepcopy__(self, memo) -> LDState:  # immutable: pomdp-py deep-copies beliefs of states
        return self

    def __repr__(self) -> str:
        bids = " ".join(f"{s}:{a}" for s, a in self.history) or "-"
        end = f", seat {self.turn} to act" if not self.terminal else f", loser {self.loser}" + (
            f", end {self.end}" if self.end >= 0 else "")
        return f"LDState(hands={self.hands}, bids [{bids}]{end})"
