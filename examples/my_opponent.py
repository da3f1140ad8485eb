"""A complete user-written opponent (the example of docs/players.md, "Writing your own opponent")."""

import numpy as np

from ldpomdp import CHALLENGE, RoundEnd, match_probability, matching_count, minimal_raises
from ldpomdp.opponent import BaseOpponent, sample_action


class MyOpponent(BaseOpponent):
    """Doubts a bid above its estimate (own matching dice + unseen dice x P(match)) with probability
    ``doubt``, always if that bidder was caught bluffing this game; otherwise raises to the smallest bid
    on the face it holds most of (ties: the lowest face)."""

    def __init__(self, doubt: float = 0.8):
        if not 0.0 <= doubt <= 1.0:
            raise ValueError(f"MyOpponent.doubt must be in [0, 1], got {doubt!r}")
        self.doubt = doubt

    def reset(self, seat, config):
        super().reset(seat, config)
        self.caught = set()  # seats caught bluffing this game

    def observe(self, event):
        if isinstance(event, RoundEnd) and event.loser == event.bidder:
            self.caught.add(event.bidder)

    def action_probabilities(self, hands, view, action):
        hands, config, bid = np.asarray(hands), view.config, view.bid
        raises = minimal_raises(config, view.table_dice, bid)
        if not raises:  # nothing left to bid: challenging is forced
            return np.full(len(hands), float(action is CHALLENGE))
        p_doubt = np.zeros(len(hands))
        if bid is not None:
            unseen = view.table_dice - view.dice[view.seat]
            estimate = matching_count(hands, bid.face, config) + unseen * match_probability(config, bid.face)
            doubt = 1.0 if view.bidder in self.caught else self.doubt
            p_doubt = np.where(estimate < bid.quantity, doubt, 0.0)
        if action is CHALLENGE:
            return p_doubt
        counts = np.stack([matching_count(hands, b.face, config) for b in raises], axis=1)
        favourite = np.argmax(counts, axis=1)
        return (1.0 - p_doubt) * (action in raises and favourite == raises.index(action))

    def act(self, view, rng):  # draw from its own likelihood: the two can never disagree
        actions = [*minimal_raises(view.config, view.table_dice, view.bid), CHALLENGE]
        hand = np.asarray(view.hand)[None, :]
        probs = np.array([self.action_probabilities(hand, view, a)[0] for a in actions])
        return sample_action(actions, probs, rng)
