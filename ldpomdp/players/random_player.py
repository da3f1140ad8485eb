"""A player that picks uniformly among the legal actions (report 004's Random agent)."""

from __future__ import annotations

import numpy as np

from ..game import PlayerView, PublicView
from ..opponent import HandIndependentOpponent
from ..rules import Action, is_legal

__all__ = ["RandomPlayer"]


class RandomPlayer(HandIndependentOpponent):
    """Uniform over legal actions; its likelihood does not depend on the hand."""

    name = "random"

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        actions = view.legal_actions()
        return actions[int(rng.integers(len(actions)))]

    def shared_probability(self, view: PublicView, action: Action) -> float:
        """Uniform over the legal actions, whatever the hand."""
        legal = is_legal(view.config, view.table_dice, view.bid, action)
        return 1.0 / len(view.legal_actions()) if legal else 0.0
