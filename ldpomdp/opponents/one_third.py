"""Report 002's "MDP" player, the one-third rule, generalised to the full game, with bluffing.

estimate(face) = own matching dice + (dice on the table - own dice) * P(a die matches face).
Challenge iff estimate(bid face) < bid quantity; otherwise raise to the smallest legal bid on the face
with the highest estimate (ties: the higher face). With probability ``bluff`` a called-for challenge
becomes that raise instead (report 002, Alg. 6 as intended).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..game import PlayerView, PublicView
from ..rules import CHALLENGE, Action, Bid, GameConfig, match_probability, minimal_raises
from .base import BaseOpponent

__all__ = ["OneThirdRule", "expected_matches", "estimate_policy"]


@lru_cache(maxsize=64)
def _match_probabilities(config: GameConfig) -> np.ndarray:
    return np.array([match_probability(config, f) for f in range(1, config.faces + 1)])


def expected_matches(hands: np.ndarray, view: PublicView) -> np.ndarray:
    """(N, faces): own matching dice of each hand plus the unseen dice times P(a die matches), per face."""
    config = view.config
    others = view.table_dice - view.dice[view.seat]
    own = np.array(hands, dtype=np.float64, ndmin=2)
    if config.wild is not None:  # wild dice count for every other face (a broadcast beats a matrix product)
        wild = own[:, config.wild - 1].copy()
        own += wild[:, None]
        own[:, config.wild - 1] = wild
    return own + others * _match_probabilities(config)


def estimate_policy(
    estimate: np.ndarray, view: PublicView, bluff: float = 0.0
) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
    """The estimate rule, shared by the one-third player and the expected-count planner.

    ``estimate`` (N, faces): expected matching dice on the whole table per face, for N hands. Returns
    P(challenge) (challenge iff the bid face's estimate is below the quantity, kept with prob. 1 - ``bluff``),
    the smallest raise on each face, and the index of the raise on the best-estimated face (ties: higher face).
    """
    raises = minimal_raises(view.config, view.table_dice, view.bid)
    n = estimate.shape[0]
    if len(raises) > 1:
        columns = estimate[:, [b.face - 1 for b in raises]]
        # argmax over reversed columns picks the highest face among ties
        choice = len(raises) - 1 - np.argmax(columns[:, ::-1], axis=1)
    else:
        choice = np.full(n, len(raises) - 1)
    if view.bid is None:
        p_challenge = np.zeros(n)
    elif not raises:
        p_challenge = np.ones(n)
    else:
        wants = estimate[:, view.bid.face - 1] < view.bid.quantity
        p_challenge = wants * (1.0 - bluff)
    return p_challenge, raises, choice


class OneThirdRule(BaseOpponent):
    """One-third-rule player (``bluff`` = 0 is report 002's MDP player)."""

    def __init__(self, bluff: float = 0.0, name: str | None = None):
        if not 0.0 <= float(bluff) <= 1.0:
            raise ValueError(f"OneThirdRule.bluff must be a probability in [0, 1], got {bluff!r}")
        self.bluff = float(bluff)
        self.name = name or ("one-third" if self.bluff == 0 else f"bluff:{self.bluff:g}")

    def policy(self, hands: np.ndarray, view: PublicView) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
        """For each hand: P(challenge), the candidate raises, and the index of the raise it would make
        (-1 when no raise is legal)."""
        return estimate_policy(expected_matches(hands, view), view, self.bluff)

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        p_challenge, raises, choice = self.policy(hands, view)
        if action is CHALLENGE:
            return p_challenge
        if action not in raises:
            return np.zeros(len(p_challenge))
        return (choice == raises.index(action)) * (1.0 - p_challenge)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        p_challenge, raises, choice = self.policy(np.asarray(view.hand)[None, :], view)
        p = float(p_challenge[0])
        if p == 1.0 or (p > 0.0 and rng.random() < p):
            return CHALLENGE
        return raises[int(choice[0])]
