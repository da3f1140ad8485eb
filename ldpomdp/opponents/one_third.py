"""Report 002's "MDP" player, the one-third rule, generalised to the full game, with bluffing.

estimate(face) = own matching dice + (dice on the table - own dice) * P(a die matches face).
Challenge iff estimate(bid face) < bid quantity; otherwise raise to the smallest legal bid on the face
with the highest estimate (ties: the higher face). With probability ``bluff`` a called-for challenge
becomes that raise instead (report 002, Alg. 6 as intended).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from ..game import PlayerView, PublicView
from ..rules import CHALLENGE, Action, Bid, GameConfig, match_probability, minimal_raises
from .base import BaseOpponent

__all__ = ["OneThirdRule", "expected_matches", "estimate_policy", "rule_faces"]


def rule_faces(view: PublicView) -> tuple[int, ...]:
    """The faces the estimate rule looks at: the standing bid's and those of the legal raises, ascending."""
    faces = {b.face for b in minimal_raises(view.config, view.table_dice, view.bid)}
    if view.bid is not None:
        faces.add(view.bid.face)
    return tuple(sorted(faces))


@lru_cache(maxsize=4096)
def _face_columns(config: GameConfig, faces: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For ``faces``: their column indices, P(a die matches) and whether wild dice count for them."""
    wild = [config.wild is not None and f != config.wild for f in faces]
    return (np.array(faces) - 1, np.array([match_probability(config, f) for f in faces]), np.array(wild))


def expected_matches(hands: np.ndarray, view: PublicView, faces: Sequence[int] | None = None) -> np.ndarray:
    """(N, len(faces)): own matching dice of each hand plus the unseen dice times P(a die matches), for
    each of ``faces`` (default: every face). Only those columns are computed: a rule that needs one face
    (the sixes game) pays for one, and a single hand costs a handful of numpy calls whatever the faces."""
    config = view.config
    faces = tuple(range(1, config.faces + 1)) if faces is None else tuple(faces)
    columns, probabilities, counts_wild = _face_columns(config, faces)
    hands = np.atleast_2d(np.asarray(hands))
    estimate = hands[:, columns] + (view.table_dice - view.dice[view.seat]) * probabilities
    if config.wild is not None:
        estimate += hands[:, config.wild - 1 : config.wild] * counts_wild
    return estimate


def estimate_policy(
    estimate: np.ndarray, view: PublicView, bluff: float = 0.0, faces: Sequence[int] | None = None
) -> tuple[np.ndarray, tuple[Bid, ...], np.ndarray]:
    """The estimate rule, shared by the one-third player, the expected-count planner and POMCP's rollout.

    ``estimate`` (N, len(faces)): expected matching dice on the whole table for N hands, one column per face
    of ``faces`` (default every face; it must include :func:`rule_faces`). Returns P(challenge) (challenge iff
    the bid face's estimate is below the quantity, kept with prob. 1 - ``bluff``), the smallest raise on each
    face, and the index of the raise on the best-estimated face (ties: higher face).
    """
    column = (lambda f: f - 1) if faces is None else list(faces).index
    raises = minimal_raises(view.config, view.table_dice, view.bid)
    n = estimate.shape[0]
    if len(raises) > 1:
        columns = estimate[:, [column(b.face) for b in raises]]
        # argmax over reversed columns picks the highest face among ties
        choice = len(raises) - 1 - np.argmax(columns[:, ::-1], axis=1)
    else:
        choice = np.full(n, len(raises) - 1)
    if view.bid is None:
        p_challenge = np.zeros(n)
    elif not raises:
        p_challenge = np.ones(n)
    else:
        wants = estimate[:, column(view.bid.face)] < view.bid.quantity
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
        faces = rule_faces(view)
        return estimate_policy(expected_matches(hands, view, faces), view, self.bluff, faces)

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
