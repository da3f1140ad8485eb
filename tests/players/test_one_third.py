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


@pytest.mark.parametrize("bids", ["full", "sixes"])
@pytest.mark.parametrize("bluff", [0.0, 0.35])
def test_hand_independent_shortcut_equals_the_rule_on_every_hand(bids, bluff):
    """The rule skips the hands exactly where its decision is the same for all of them (and at most one
    raise is legal), and then answers what it computes hand by hand."""
    from ldpomdp.estimate import estimate_policy, expected_matches

    config = GameConfig(dice=(4, 3), bids=bids)
    rule, hands, shortcuts = OneThirdRule(bluff=bluff), all_hands(4, 6), 0  # every hand: none to 4 matches
    faces = (6,) if bids == "sixes" else range(1, 7)
    for table_bid in [None] + [Bid(q, f) for q in range(1, 8) for f in faces]:
        history = [] if table_bid is None else [(1, table_bid)]
        view = view_for(config, hands[0], (4, 3), history)
        shortcut = rule._settled(view) is not None
        want_p, want_raises, want_choice = estimate_policy(expected_matches(hands, view), view, bluff)
        constant = len(set(want_p)) == 1 and len(set(want_choice)) == 1
        assert shortcut == (constant and len(want_raises) <= 1)
        shortcuts += shortcut
        got_p, got_raises, got_choice = rule.policy(hands, view)
        assert got_raises == want_raises
        np.testing.assert_array_equal(got_p, want_p)
        np.testing.assert_array_equal(got_choice, want_choice)
        for action in legal_actions(config, 7, table_bid):
            want = estimate_policy(expected_matches(hands, view), view, bluff)
            index = want[1].index(action) if action in want[1] else None
            expected = want[0] if action is CHALLENGE else (
                np.zeros(len(hands)) if index is None else (want[2] == index) * (1 - want[0]))
            np.testing.assert_array_equal(rule.action_probabilities(hands, view, action), expected)
            shared = rule.shared_probability(view, action)  # the belief's shortcut: one number for all hands
            assert (shared is not None) == shortcut
            if shortcut:
                np.testing.assert_array_equal(np.full(len(hands), shared), expected)
    assert shortcuts >= (4 if bids == "sixes" else 1)


@pytest.mark.parametrize("wild", [1, 6, None])
def test_many_hands_are_computed_like_one_hand_at_a_time(wild):
    """Particles (many rows) take another code path than single hands: same estimates and decisions,
    ties going to the higher face (checked against an argmax over the reversed columns)."""
    from ldpomdp.estimate import FEW_HANDS, estimate_policy, expected_matches

    config = GameConfig(dice=(6, 4), wild=wild)
    rng = np.random.default_rng(5)
    hands = rng.multinomial(6, [1 / 6] * 6, size=4 * FEW_HANDS)
    for bid in [None, Bid(2, 3), Bid(3, 6), Bid(5, 2)]:
        view = view_for(config, hands[0], (6, 4), [] if bid is None else [(1, bid)])
        many = expected_matches(hands, view)
        one = np.concatenate([expected_matches(h[None, :], view) for h in hands])
        np.testing.assert_allclose(many, one)
        p_many, raises, choice_many = estimate_policy(many, view)
        p_one, _, choice_one = estimate_policy(one, view)
        np.testing.assert_array_equal(p_many, p_one)
        np.testing.assert_array_equal(choice_many, choice_one)
        columns = one[:, [b.face - 1 for b in raises]]
        np.testing.assert_array_equal(choice_many, len(raises) - 1 - np.argmax(columns[:, ::-1], axis=1))


def test_the_estimate_rule_hook_is_not_inherited_by_a_subclass_changing_the_rule():
    from ldpomdp.hooks import estimate_rule_of
    from ldpomdp.players import RandomPlayer

    class Renamed(OneThirdRule):  # same rule: the hook still speaks for it
        pass

    class Stubborn(OneThirdRule):  # another move: POMCP must ask act, not tabulate the rule
        def act(self, view, rng):
            return view.legal_actions()[0]

    class Scaled(OneThirdRule):
        def action_probabilities(self, hands, view, action):
            return 0.5 * super().action_probabilities(hands, view, action)

    assert estimate_rule_of(OneThirdRule(bluff=0.25)) == 0.25 and estimate_rule_of(Renamed()) == 0.0
    assert estimate_rule_of(Stubborn()) is None and estimate_rule_of(Scaled()) is None
    assert estimate_rule_of(RandomPlayer()) is None
