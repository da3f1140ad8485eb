"""The quantal estimate rule: the one-third rule's estimates, played as a logit (quantal) response.

With e(f) the expected matching dice on the table for face f (:func:`~ldpomdp.estimate.expected_matches`) and T the
``temperature`` (in dice): facing a bid of q on face f it challenges with probability 1 / (1 + exp(-(q - e(f)) / T)),
and otherwise raises to a legal bid (q', f') with probability proportional to exp((e(f') - q') / T); never the exact
call. Cold, it challenges where the one-third rule does (but for e(f) = q: half the time) and raises to the bids that
its estimates hold by most, not to the best-estimated face. A model of an honest, noisy player (Many players page).
"""

from __future__ import annotations

import numpy as np

from ..estimate import expected_matches
from ..game import PlayerView, PublicView
from ..opponent import BaseOpponent, ViewMemo, sample_action
from ..registry import spec_text
from ..rules import CHALLENGE, Action, Bid
from ..validation import number

__all__ = ["QuantalEstimate"]

COLDEST = 1e-6  # the lowest temperature, in dice


class QuantalEstimate(BaseOpponent):
    """Challenges with logistic((q - e) / ``temperature``), else raises with softmax((e - q') / ``temperature``)."""

    def __init__(self, temperature: float = 1.0, name: str | None = None):
        # colder plays as the cold limit already (any two margins differ by a sixth of a die at least), and cannot
        # overflow the logits
        self.temperature = number("QuantalEstimate", "temperature", temperature, COLDEST)
        self.name = name or spec_text("quantal", {"temperature": None if self.temperature == 1.0 else self.temperature})
        self._memo: ViewMemo[tuple[tuple[Action, ...], np.ndarray]] = ViewMemo()

    def policy(self, hands: np.ndarray, view: PublicView) -> tuple[tuple[Action, ...], np.ndarray]:
        """The legal raises, then the challenge when a bid stands, and (N, those actions) their probabilities for
        each of the N ``hands``."""
        estimate = expected_matches(np.atleast_2d(np.asarray(hands)), view)  # (N, faces)
        raises = tuple(a for a in view.legal_actions() if isinstance(a, Bid))
        probs = np.zeros((estimate.shape[0], len(raises)))
        if raises:
            margin = estimate[:, [b.face - 1 for b in raises]] - np.array([b.quantity for b in raises])
            probs = np.exp((margin - margin.max(axis=1, keepdims=True)) / self.temperature)
            probs /= probs.sum(axis=1, keepdims=True)
        if view.bid is None:
            return raises, probs
        doubt = (view.bid.quantity - estimate[:, view.bid.face - 1]) / self.temperature
        challenge = 0.5 * (1.0 + np.tanh(0.5 * doubt)) if raises else np.ones(len(probs))  # the logistic, overflow-free
        return raises + (CHALLENGE,), np.concatenate([probs * (1.0 - challenge)[:, None], challenge[:, None]], axis=1)

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        actions, probs = self._memo.get(hands, view, lambda: self.policy(hands, view))
        try:
            column = actions.index(action)  # one scan of the ~100 legal actions, not a test then a search
        except ValueError:  # not legal here, or the exact call
            return np.zeros(len(probs))
        return probs[:, column].copy()

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        actions, probs = self.policy(np.asarray(view.hand)[None, :], view)
        return sample_action(actions, probs[0], rng)
