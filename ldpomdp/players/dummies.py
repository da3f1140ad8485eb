"""Report 004's dummy agents (WiLDCARD, section 4.1): Aggressive and Conservative.

Random is ``RandomPlayer``. Both are our readings of the report's one-line descriptions."""

from __future__ import annotations

import numpy as np

from ..game import PlayerView, PublicView
from ..opponent import BaseOpponent, HandIndependentOpponent, sample_action
from ..rules import CHALLENGE, Action, Bid, faces_for, is_legal, match_matrix, minimal_raises

__all__ = ["AggressivePlayer", "ConservativePlayer"]


class AggressivePlayer(HandIndependentOpponent):
    """Challenges half the time, otherwise raises by one quantity or one face; ignores its hand.

    The two raises are equally likely; a face raise from the highest face or in the sixes game falls back to the
    quantity raise, a quantity raise over the table to the face raise, and with neither it challenges. The opener
    bids one die of a uniformly drawn face.
    """

    name = "aggressive"

    @staticmethod
    def distribution(view: PublicView) -> dict[Action, float]:
        """Every action it may take here with its probability (the same for every hand)."""
        config, bid = view.config, view.bid
        if bid is None:
            faces = faces_for(config, None, 1)  # every bid face, but ones under Perudo bids
            return {Bid(1, f): 1.0 / len(faces) for f in faces}
        up_quantity = Bid(bid.quantity + 1, bid.face) if bid.quantity < view.table_dice else None
        up_face = Bid(bid.quantity, bid.face + 1) if config.bids == "full" and bid.face < config.faces else None
        if up_face is not None and not is_legal(config, view.table_dice, bid, up_face):
            up_face = None  # the variants' orders: no face raise after ones (Perudo bids), nor in a palifico round
        dist: dict[Action, float] = {CHALLENGE: 0.5}
        for action in (up_quantity or up_face or CHALLENGE, up_face or up_quantity or CHALLENGE):
            dist[action] = dist.get(action, 0.0) + 0.25
        return dist

    def shared_probability(self, view: PublicView, action: Action) -> float:
        """P(``action``) from ``distribution``, whatever the hand."""
        return self.distribution(view).get(action, 0.0)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        dist = self.distribution(view)
        return sample_action(list(dist), np.array(list(dist.values())), rng)


class ConservativePlayer(BaseOpponent):
    """Bids only what its own hand makes true (the smallest such bid), else challenges.

    That is the smallest legal bid, in bid order, whose quantity is at most its own matching dice on its face. An
    opener without such a bid (possible only in the sixes game) makes the smallest legal bid.
    """

    name = "conservative"

    @staticmethod
    def policy(hands: np.ndarray, view: PublicView) -> tuple[tuple[Bid, ...], np.ndarray]:
        """The minimal raises in bid order and, for each hand, the index of its bid (-1: challenge)."""
        hands = np.asarray(hands)
        raises = tuple(sorted(minimal_raises(view.config, view.table_dice, view.bid)))
        if not raises:
            return raises, np.full(hands.shape[0], -1)
        matching = hands @ match_matrix(view.config)
        true = matching[:, [b.face - 1 for b in raises]] >= np.array([b.quantity for b in raises])
        fallback = 0 if view.bid is None else -1  # the opener must bid
        return raises, np.where(true.any(axis=1), np.argmax(true, axis=1), fallback)

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        raises, choice = self.policy(hands, view)
        if action is CHALLENGE:
            return (choice == -1).astype(np.float64) if view.bid is not None else np.zeros(len(choice))
        if action not in raises:
            return np.zeros(len(choice))
        return (choice == raises.index(action)).astype(np.float64)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        raises, choice = self.policy(np.asarray(view.hand)[None, :], view)
        return CHALLENGE if choice[0] < 0 else raises[int(choice[0])]
