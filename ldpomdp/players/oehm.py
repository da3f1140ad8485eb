"""Report 003's binomial bluffing agent (Oehm, "Liar's Dice in R").

Challenge with probability 1 - P(current bid true | own hand) (binomial tail over the unseen dice);
otherwise raise the quantity by one, on the face with the most matching dice in hand (ties: the higher
face), or, with probability ``bluff``, on a face drawn uniformly ("bluffing"). The opener bids quantity
one the same way; when quantity + 1 exceeds the dice on the table it must challenge. In the "sixes" game
there is one bid face, so the raise is the single +1 raise.
"""

from __future__ import annotations

import numpy as np

from ..bid_probability import bid_true_probability
from ..game import PlayerView, PublicView
from ..opponent import BaseOpponent, ViewMemo, sample_action
from ..rules import CHALLENGE, Action, Bid, faces_for, match_matrix
from ..validation import probability

__all__ = ["OehmPlayer"]


class OehmPlayer(BaseOpponent):
    """Calls in proportion to its doubt, raises by one on its best face or, with prob. ``bluff``, any face."""

    def __init__(self, bluff: float = 0.0, name: str | None = None):
        self.bluff = probability("OehmPlayer", "bluff", bluff)
        self.name = name or f"oehm:{self.bluff:g}"
        self._memo: ViewMemo[tuple[np.ndarray, int, np.ndarray]] = ViewMemo()

    def policy(self, hands: np.ndarray, view: PublicView) -> tuple[np.ndarray, int, np.ndarray]:
        """For each hand: P(challenge), the raise quantity, and P(raise lands on face f) as (N, faces)
        given that it raises (columns of faces that cannot be bid are zero)."""
        hands = np.asarray(hands)
        config, bid = view.config, view.bid
        quantity = 1 if bid is None else bid.quantity + 1
        n = hands.shape[0]
        if bid is None:
            p_challenge = np.zeros(n)
        elif quantity > view.table_dice:
            p_challenge = np.ones(n)
        else:
            p_challenge = 1.0 - bid_true_probability(hands, view, bid)
        # the faces a raise of this quantity may name (every bid face, but under the variants' orders)
        columns = np.array(faces_for(config, bid, quantity) if quantity <= view.table_dice else config.bid_faces) - 1
        matching = (hands @ match_matrix(config))[:, columns]
        favourite = columns[len(columns) - 1 - np.argmax(matching[:, ::-1], axis=1)]  # ties: higher face
        face_probs = np.zeros((n, config.faces))
        face_probs[:, columns] = self.bluff / len(columns)
        face_probs[np.arange(n), favourite] += 1.0 - self.bluff
        return p_challenge, quantity, face_probs

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        p_challenge, quantity, face_probs = self._memo.get(hands, view, lambda: self.policy(hands, view))
        if action is CHALLENGE:
            return p_challenge.copy() if view.bid is not None else np.zeros_like(p_challenge)
        if not isinstance(action, Bid) or action.quantity != quantity or not 1 <= action.face <= view.config.faces:
            return np.zeros_like(p_challenge)
        return (1.0 - p_challenge) * face_probs[:, action.face - 1]

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        p_challenge, quantity, face_probs = self.policy(np.asarray(view.hand)[None, :], view)
        if rng.random() < p_challenge[0]:
            return CHALLENGE
        faces = list(range(1, view.config.faces + 1))
        return Bid(quantity, int(sample_action(faces, face_probs[0], rng)))
