"""Report 002's "POMDP" player (Alg. 5), over any belief.

Estimate = own matching dice + the belief's expected matching dice of every opponent; challenge iff the estimate is
below the bid, else raise on the best face."""

from __future__ import annotations

import numpy as np

from ldpomdp.estimate import estimate_policy, exact_call_pays, rule_faces, settled_decision
from ldpomdp.game import PlayerView
from ldpomdp.rules import CHALLENGE, EXACT, Action, match_matrix, matching_count, minimal_raises

from ._common import BeliefPlayer

__all__ = ["ExpectedCountPlanner"]


class ExpectedCountPlanner(BeliefPlayer):
    """The expected-count policy over a per-round ``TableBelief``.

    Options: ``belief`` "particles" (``n_particles``, ``injection``, ``refresh``) or "exact"; ``assume``, the spec of
    the opponent model behind the belief updates (default "one-third"); ``seed`` for the belief. The decision rule is
    ``estimate_policy``, the one-third player's rule with the belief's expectation in place of "a third of the unseen
    dice". Under ``exact_call`` it calls exact where ``exact_call_pays`` says so of the belief's distribution of the
    matching dice.
    """

    name = "expected-count"

    @property
    def deterministic(self) -> bool:
        """Whether ``act`` is a function of the events and the view (an exact belief draws nothing)."""
        return self.belief_kind == "exact"

    def estimate(self, view: PlayerView) -> np.ndarray:
        """(faces,) expected matching dice on the table per face: own hand plus the belief's expectation,
        for the faces the rule looks at (the bid's face and those of the raises; the others get own dice only)."""
        config = view.config
        others, belief = np.zeros(config.faces), self.round_belief()
        for f in rule_faces(view):
            others[f - 1] = belief.expected_total(f, config.wild)
        return np.asarray(view.hand) @ match_matrix(config) + others

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        config, bid, table = view.config, view.bid, view.table_dice
        decided = None
        if len(minimal_raises(config, table, bid)) <= 1:  # one raise at most: only the bid face's estimate matters
            own = 0 if bid is None else int(matching_count(view.hand, bid.face, config))
            # the others' expected matching dice lie between none and all of their dice: the belief is asked
            # only when the rule decides differently at the two ends
            decided = settled_decision(config, table, bid, 0.0, own, own + table - view.dice[view.seat])
            if decided is None:
                assert bid is not None  # the opening decision is settled without the belief
                estimate = own + self.round_belief().expected_total(bid.face, config.wild)
                decided = settled_decision(config, table, bid, 0.0, estimate, estimate)
        if decided is None:
            p_challenges, raises, choices = estimate_policy(self.estimate(view)[None, :], view)
            decided = p_challenges[0], raises, choices[0]
        p_challenge, raises, choice = decided
        if config.exact_call and bid is not None:
            others, needed = self.standing_bid_odds(view)
            regains = view.dice[self.seat] < config.starting_dice[self.seat]
            if exact_call_pays(others, needed, regains, p_challenge > 0 or not raises):
                return EXACT
        return CHALLENGE if p_challenge > 0 else raises[int(choice)]
