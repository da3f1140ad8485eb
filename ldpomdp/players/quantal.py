"""The quantal estimate rule: the one-third rule's estimates, played as a logit (quantal) response.

With e(f) the expected matching dice on the table for face f (:func:`~ldpomdp.estimate.expected_matches`) and T the
``temperature`` (in dice): facing a bid of q on face f it challenges with probability 1 / (1 + exp(-(q - e(f)) / T))
(the one-third rule's "challenge iff e(f) < q", softened), and otherwise raises to a legal bid (q', f') with
probability proportional to exp((e(f') - q') / T). It never makes the exact call. As a model of other seats it is an
honest, noisy player (the Many players page measures ``lbr:quantal``).
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


class QuantalEstimate(BaseOpponent):
    """Challenges with logistic((q - e) / ``temperature``), else raises with softmax((e - q') / ``temperature``)."""

    def __init__(self, temperature: float = 1.0, name: str | None = None):
        self.temperature = number("QuantalEstimate", "temperature", temperature, 0.0, low_open=True)
        self.name = name or spec_text("quantal", {"temperature": None if self.temperature == 1.0 else temperature})
        self._memo: ViewMemo[tuple[tuple[Action, ...], np.ndarray]] = ViewMemo()

    def policy(self, hands: np.ndarray, view: PublicView) -> tuple[tuple[Action, ...], np.ndarray]:
        """The legal raises, then the challenge when a bid stands, and (N, those actions) their probabilities for
        each of the N ``hands``."""
        estimate = expected_matches(np.atleast_2d(np.asarray(hands)), view)  # (N, faces)
        raises = tuple(a for a in view.legal_actions() if isinstance(a, Bid))
        probs = np.zeros((estimate.shape[0], len(raises)))
        if raises:
            quantities = np.array([b.quantity for b in raises])
            margin = (estimate[:, [b.face - 1 for b in raises]] - quantities) / self.temperature
            probs = np.exp(margin - margin.max(axis=1, keepdims=True))
            probs /= probs.sum(axis=1, keepdims=True)
        if view.bid is None:
            return raises, probs
        doubt = (view.bid.quantity - estimate[:, view.bid.face - 1]) / self.temperature
        challenge = 0.5 * (1.0 + np.tanh(0.5 * doubt)) if raises else np.ones(len(probs))  # the logistic, overflow-free
        return raises + (CHALLENGE,), np.concatenate([probs * (1.0 - challenge)[:, None], challenge[:, None]], axis=1)

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        actions, probs = self._memo.get(hands, view, lambda: self.policy(hands, view))
        if action not in actions:
            return np.zeros(len(probs))
        return probs[:, actions.index(action)].copy()

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        actions, probs = self.policy(np.asarray(view.hand)[None, :], view)
        return sample_action(actions, probs[0], rng)
