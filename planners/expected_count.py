"""Report 002's "POMDP" player (Alg. 5), over any belief: estimate = own matching dice + the belief's expected
matching dice of every opponent; challenge iff the estimate is below the bid, else raise on the best face."""

from __future__ import annotations

import numpy as np

from ldpomdp.game import PlayerView
from ldpomdp.opponents.one_third import estimate_policy, rule_faces, settled_decision
from ldpomdp.rules import CHALLENGE, Action, Bid, match_matrix

from ._common import BeliefPlayer

__all__ = ["ExpectedCountPlanner"]


class ExpectedCountPlanner(BeliefPlayer):
    """The expected-count policy over a per-round :class:`~ldpomdp.belief.TableBelief`.

    Options: ``belief`` "particles" (``n_particles``, ``injection``, ``refresh``) or "exact"; ``assume``, the
    spec of the opponent model behind the belief updates (default "one-third"); ``seed`` for the belief.
    The decision rule is :func:`~ldpomdp.opponents.one_third.estimate_policy`, the one-third player's rule
    with the belief's expectation in place of "a third of the unseen dice".
    """

    name = "expected-count"

    def estimate(self, view: PlayerView) -> np.ndarray:
        """(faces,) expected matching dice on the table per face: own hand plus the belief's expectation,
        for the faces the rule looks at (the bid's face and those of the raises; the others get own dice only)."""
        config = view.config
        others = np.zeros(config.faces)
        for f in rule_faces(view):
            others[f - 1] = self.belief.expected_total(f, config.wild)
        return np.asarray(view.hand) @ match_matrix(config) + others

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        settled = self._settled(view)
        if settled is not None:
            p_challenge, raises, choice = settled
        else:
            p_challenges, raises, choices = estimate_policy(self.estimate(view)[None, :], view)
            p_challenge, choice = p_challenges[0], choices[0]
        return CHALLENGE if p_challenge > 0 else raises[int(choice)]

    def _settled(self, view: PlayerView) -> tuple[float, tuple[Bid, ...], int] | None:
        """The decision when the belief cannot change it (e.g. our own dice already make the bid): the
        others' expected matching dice lie between none and all of their dice."""
        bid = view.bid
        own = 0 if bid is None else int(np.asarray(view.hand) @ match_matrix(view.config)[:, bid.face - 1])
        others = view.table_dice - view.dice[view.seat]
        return settled_decision(view.config, view.table_dice, bid, 0.0, own, own + others)
