"""The ``nash`` player: the exact equilibrium of each round, solved once per rule set and dice split.

The solutions come from ``cached_solution``."""

from __future__ import annotations

import numpy as np

from ..exact.two_player.sequence_form import RoundSolution
from ..exact.two_player.solved_rounds import cached_solution
from ..exact.two_player.tree import check_size, round_dice
from ..game import PlayerView, PublicView
from ..opponent import BaseOpponent, sample_action
from ..rules import Action, GameConfig

__all__ = ["NashPlayer"]


class NashPlayer(BaseOpponent):
    """Plays the exact equilibrium of each round (two players, rounds small enough to solve).

    ``cache=False`` keeps solutions in memory only.
    """

    def __init__(self, cache: bool = True, name: str | None = None):
        self.cache = bool(cache)
        self.name = name or "nash"

    def reset(self, seat: int, config: GameConfig) -> None:
        check_size(config)  # refuse a game whose first round is already too large, before it starts
        super().reset(seat, config)

    def _locate(self, view: PublicView) -> tuple[RoundSolution, int, int]:
        """(solution, role, node) of the decision in ``view``."""
        opener = view.history[0][0] if view.history else view.seat
        dice = round_dice(view.config, (view.dice[opener], view.dice[1 - opener]))
        solution = cached_solution(view.config, dice, use_disk=self.cache)
        bids = tuple(action for _, action in view.history)
        try:
            node = solution.tree.node_index[bids]
        except KeyError:
            raise ValueError(f"{self.name}: history {view.history} is not a legal bid sequence") from None
        return solution, int(view.seat != opener), node

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        solution, role, node = self._locate(view)
        rows = solution.tree.hand_index(role, hands)
        actions = solution.tree.actions(node)
        if action not in actions:
            return np.zeros(len(rows))
        return solution.probabilities(role, rows, node)[:, actions.index(action)]

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        solution, role, node = self._locate(view)
        rows = solution.tree.hand_index(role, np.asarray(view.hand)[None, :])
        return sample_action(solution.tree.actions(node), solution.probabilities(role, rows, node)[0], rng)
