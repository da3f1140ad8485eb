"""Report 002's "MDP" player, the one-third rule, generalised to the full game, with bluffing.

It plays the estimate rule of ``ldpomdp.estimate`` with
estimate(face) = own matching dice + (dice on the table - own dice) * P(a die matches face).
Challenge iff estimate(bid face) < bid quantity; otherwise raise to the smallest legal bid on the face
with the highest estimate (ties: the higher face). With probability ``bluff`` a called-for challenge
becomes that raise instead (report 002, Alg. 6 as intended).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..caches import register_cache
from ..estimate import (
    bid_face_decides,
    estimate_policy,
    expected_matches,
    probability_of,
    rule_faces,
    settled_for,
    settled_for_any_hand,
)
from ..game import PlayerView, PublicView
from ..hands import count_hands
from ..opponent import BaseOpponent, ViewMemo
from ..rules import CHALLENGE, Action, Bid, matching_count
from ..validation import probability

__all__ = ["OneThirdRule"]


CACHED_COUNT_POLICIES = 65_536  # decisions by matching count remembered (a few dice settings' states)
_count_policies: dict[tuple, tuple[np.ndarray, tuple[Bid, ...], np.ndarray]] = register_cache(
    f"{__name__}._count_policies", {})  # shared by every player


class OneThirdRule(BaseOpponent):
    """One-third-rule player (``bluff`` = 0 is report 002's MDP player)."""

    def __init__(self, bluff: float = 0.0, name: str | None = None):
        self.bluff = probability("OneThirdRule", "bluff", bluff)
        self.name = name or ("one-third" if self.bluff == 0 else f"bluff:{self.bluff:g}")
        self._memo: ViewMemo[tuple[np.ndarray, tuple[Bid, ...], np.ndarray]] = ViewMemo()

    def policy(self, hands: np.ndarray, view: PublicView) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
        """For each hand: P(challenge), the candidate raises, and the index of the raise it would make
        (-1 when no raise is legal)."""
        same = self._settled(view)
        if same is None:
            return self._policy_by_hand(hands, view)
        n = np.atleast_2d(np.asarray(hands)).shape[0]
        return np.full(n, same[0]), same[1], np.full(n, same[2])

    def _policy_by_hand(self, hands: np.ndarray, view: PublicView) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
        faces = rule_faces(view)
        return estimate_policy(expected_matches(hands, view, faces), view, self.bluff, faces)

    def _policy_by_count(self, view: PublicView) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
        """``_policy_by_hand`` for hands of c = 0 .. the seat's dice matching the bid's face (the count decides).

        The count decides where ``deciding_face`` says so. Remembered per state and class by every player of the
        process (beliefs ask it of every opponent bid, and a game rarely meets a state twice: the dice on the table
        fall every round)."""
        key = (type(self), view.config, view.table_dice, view.bid, view.dice[view.seat], self.bluff)
        policy = _count_policies.get(key)
        if policy is None:
            if len(_count_policies) >= CACHED_COUNT_POLICIES:
                _count_policies.clear()
            assert view.bid is not None  # a count decides only over a bid
            hands = count_hands(view.dice[view.seat], view.bid.face, view.config)
            policy = _count_policies[key] = self._policy_by_hand(hands, view)
            for array in (policy[0], policy[2]):
                array.flags.writeable = False  # shared: nobody may change a remembered decision
        return policy

    def _settled(
        self, view: PublicView, hand: Sequence[int] | None = None
    ) -> tuple[float, tuple[Bid, ...], int] | None:
        """``settled_decision`` for the known ``hand``, or for any hand of the seat's dice (None): the decision when
        no hand can change it (e.g. most bids of the sixes game)."""
        bid = view.bid
        if hand is None:
            return settled_for_any_hand(view.config, view.table_dice, bid, view.dice[view.seat], self.bluff)
        own = None if bid is None else matching_count(tuple(hand), bid.face, view.config)
        return settled_for(view.config, view.table_dice, bid, view.dice[view.seat], self.bluff, own)

    def shared_probability(self, view: PublicView, action: Action) -> float | None:
        """P(``action``) when no hand of the seat's dice can change the rule's move here, else None."""
        same = self._settled(view)
        return None if same is None else float(probability_of(action, *same))

    def estimate_rule(self) -> float:
        """The optional ``estimate_rule`` hook (see ``estimate_rule_of``): this player's ``bluff``.

        This player's move on every view is ``estimate_policy`` of ``expected_matches`` of its hand with this
        ``bluff``, so a planner may tabulate it over many hands at once."""
        return self.bluff

    def deciding_face(self, view: PublicView) -> int | None:
        """The bid's face when at most one raise is legal (the sixes game, always): only its estimate counts."""
        return bid_face_decides(view)

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        shared = self.shared_probability(view, action)
        if shared is not None:
            return np.full(len(hands), shared)
        face = bid_face_decides(view)  # the rule's own answer: a subclass's deciding_face is checked against this
        if face is not None:  # look each hand's matching count up
            by_count = probability_of(action, *self._policy_by_count(view))
            return np.take(by_count, matching_count(hands, face, view.config))
        policy = self._memo.get(hands, view, lambda: self._policy_by_hand(hands, view))
        return np.array(probability_of(action, *policy))  # a copy: the memo's arrays are shared

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        decided = self._settled(view, view.hand)  # one raise at most: the bid face's estimate decides
        if decided is None:
            p_challenges, raises, choices = self._policy_by_hand(np.asarray(view.hand)[None, :], view)
            decided = float(p_challenges[0]), raises, int(choices[0])
        p, raises, choice = decided
        if p == 1.0 or (p > 0.0 and rng.random() < p):
            return CHALLENGE
        return raises[choice]
