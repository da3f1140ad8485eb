"""The one-third rule: decisions from report 002 and a likelihood that agrees with ``act``."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import all_hands

from ldpomdp import CHALLENGE, Bid, GameConfig, OneThirdRule, PlayerView, legal_actions


def view_for(config, hand, dice, history=(), seat=0):
    return PlayerView(config, seat, tuple(dice), tuple(history), hand=tuple(int(x) for x in hand))


def test_sixes_rule_matches_report_002():
    """estimate = own 1s and 6s + other dice / 3; challenge iff estimate < current quantity."""
    config = GameConfig(bids="sixes", dice=4)
    hand = (1, 0, 1, 0, 0, 2)  # one 1, one 3, two 6s -> 3 matching sixes
    rule = OneThirdRule()
    rng = np.random.default_rng(0)
    # 3 + 6/3 = 5: a bid of 5 sixes stands, 6 is challenged
    assert rule.act(view_for(config, hand, (4, 6), [(1, Bid(5, 6))]), rng) == Bid(6, 6)
    assert rule.act(view_for(config, hand, (4, 6), [(1, Bid(6, 6))]), rng) is CHALLENGE


def test_full_game_raises_on_best_face():
    config = GameConfig(dice=5)
    hand = (0, 0, 3, 0, 2, 0)  # three 3s, two 5s
    move = OneThirdRule().act(view_for(config, hand, (5, 5), [(1, Bid(1, 4))]), np.random.default_rng(0))
    assert move == Bid(2, 3)  # 3 + 5/3 on threes beats 2 + 5/3 on fives; 2x3 is the smallest raise


def test_bluff_validation():
    with pytest.raises(ValueError, match="bluff"):
        OneThirdRule(bluff=1.5)


@pytest.mark.parametrize("bids", ["full", "sixes"])
@pytest.mark.parametrize("bluff", [0.0, 0.35])
@pytest.mark.parametrize("wild", [1, 6, None])
def test_likelihood_agrees_with_act_on_every_hand(bids, bluff, wild):
    """For random states: probabilities over legal actions sum to one for every hand, are 0/1 without
    bluff, and ``act`` only plays actions of positive probability."""
    config = GameConfig(dice=3, bids=bids, wild=wild)
    rule = OneThirdRule(bluff=bluff)
    rng = np.random.default_rng(11)
    hands = all_hands(3, 6)
    for _ in range(25):
        dice = (3, int(rng.integers(1, 6)))
        table = sum(dice)
        history, bid = [], None
        for _ in range(int(rng.integers(0, 4))):
            options = [a for a in legal_actions(config, table, bid) if a is not CHALLENGE]
            if not options:
                break
            bid = options[int(rng.integers(min(len(options), 4)))]
            history.append((len(history) % 2, bid))
        view = view_for(config, hands[0], dice, history)
        actions = legal_actions(config, table, bid)
        probs = np.stack([rule.action_probabilities(hands, view, a) for a in actions], axis=1)
        np.testing.assert_allclose(probs.sum(axis=1), 1.0)
        if bluff == 0.0:
            assert set(np.unique(probs)) <= {0.0, 1.0}
        for i, h in enumerate(hands):
            played = rule.act(view_for(config, h, dice, history), rng)
            assert probs[i, actions.index(played)] > 0
