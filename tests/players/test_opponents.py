"""The opponent zoo: legality and self-consistency (check_opponent), exact likelihoods against sampled
frequencies of ``act``, each family's rule on hand-made states, and clear errors for broken user classes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import all_hands

from ldpomdp import CHALLENGE, Bid, GameConfig, PlayerView, PublicView, RoundEnd, play_game
from ldpomdp.bid_probability import bid_true_probability
from ldpomdp.errors import UsageError
from ldpomdp.game import ActionTaken, IllegalActionError, RoundStart
from ldpomdp.hands import hand_support
from ldpomdp.opponent import BaseOpponent, ViewMemo
from ldpomdp.players import (
    AggressivePlayer,
    BurcsiNagyPlayer,
    ConservativePlayer,
    OehmPlayer,
    OneThirdRule,
    QuantalEstimate,
    RandomPlayer,
    check_opponent,
)
from ldpomdp.players.burcsi_nagy import uniform_difference_sf
from ldpomdp.registry import make_player
from ldpomdp.rules import match_matrix

CONFIGS = {
    "full-ones-wild": GameConfig(num_players=3, dice=5),
    "full-no-wild": GameConfig(num_players=3, dice=3, wild=None),
    "full-high-wild": GameConfig(num_players=2, dice=4, wild=6),
    "sixes-ones-wild": GameConfig(num_players=2, dice=4, bids="sixes"),
    "sixes-high-wild": GameConfig(num_players=3, dice=3, wild=6, bids="sixes"),
}
SPECS = ["oehm:0.3", "burcsi-nagy:s=0.6,t=0.4", "aggressive", "conservative", "random", "one-third", "bluff:0.35",
         "quantal:temperature=0.7", "quantal:reads=true"]


def view_for(config, hand, dice, history=(), seat=0):
    return PlayerView(config, seat, tuple(dice), tuple(history), hand=tuple(int(x) for x in hand))


def round_end(caller, bidder, loser, dice=(5, 5, 5)):
    """A finished round for ``observe`` (hands and bid do not matter to the models here)."""
    hands = tuple((0,) * 5 + (d,) for d in dice)
    return RoundEnd(0, hands, Bid(1, 2), bidder, caller, loser, 0, dice)


@pytest.mark.parametrize("config_name", sorted(CONFIGS))
@pytest.mark.parametrize("spec", SPECS)
def test_every_opponent_passes_check_opponent(spec, config_name):
    """Legal actions only, probabilities in [0, 1] summing to one over the legal actions, act consistent."""
    turns = check_opponent(make_player(spec), CONFIGS[config_name], np.random.default_rng(7), n_states=100)
    assert turns >= 100


# --- exact likelihoods against the sampled frequencies of act -------------------------------------

def frequency_check(model, view, rng, samples=3000):
    """Sample act and compare each action's frequency with action_probabilities (4-sigma bands), the actions
    expected fewer than 5 times pooled into one (a lone draw of a rarer one would fall outside its band)."""
    legal = view.legal_actions()
    hand = np.asarray(view.hand)[None, :]
    probs = np.array([model.action_probabilities(hand, view.public(), a)[0] for a in legal])
    assert probs.sum() == pytest.approx(1.0, abs=1e-9)
    counts = dict.fromkeys(legal, 0)
    for _ in range(samples):
        counts[model.act(view, rng)] += 1
    freq = np.array([counts[a] for a in legal]) / samples
    rare = probs * samples < 5
    binned_probs = np.append(probs[~rare], probs[rare].sum())
    binned_freq = np.append(freq[~rare], freq[rare].sum())
    tolerance = 4 * np.sqrt(binned_probs * (1 - binned_probs) / samples)
    assert np.all(np.abs(binned_freq - binned_probs) <= tolerance), (
        type(model).__name__, list(zip(legal, probs, freq, strict=True)))
    return probs


def test_oehm_frequencies_match_probabilities():
    config = GameConfig(num_players=3, dice=5)
    model = OehmPlayer(bluff=0.4)
    model.reset(0, config)
    rng = np.random.default_rng(11)
    for hand, bid in [((1, 0, 2, 0, 1, 1), Bid(5, 3)), ((0, 1, 1, 1, 1, 1), Bid(6, 6)), ((2, 2, 0, 0, 1, 0), None)]:
        history = () if bid is None else ((2, bid),)
        probs = frequency_check(model, view_for(config, hand, (5, 5, 5), history), rng)
        assert 0 < probs.max() < 1


def test_burcsi_nagy_frequencies_match_probabilities_with_every_nudge():
    """Seat 0 acts on seat 2's bid; seat 1 is next. Switch on c_s, c_t, both, neither via observe."""
    config = GameConfig(num_players=3, dice=5)
    view = view_for(config, (1, 0, 1, 1, 2, 0), (5, 5, 5), ((1, Bid(6, 5)), (2, Bid(7, 3))))
    histories = {
        "none": [],
        "s": [round_end(caller=0, bidder=2, loser=2)],  # our challenge of seat 2 succeeded
        "t": [round_end(caller=1, bidder=0, loser=1)],  # seat 1's challenge failed
        "both": [round_end(0, 2, 2), round_end(1, 0, 1)],
    }
    rng = np.random.default_rng(12)
    raise_probs = {}
    for name, events in histories.items():
        model = BurcsiNagyPlayer(s=0.6, t=0.5)
        model.reset(0, config)
        for event in events:
            model.observe(event)
        assert model.widths(view) == {"none": (0, 0), "s": (0.6, 0), "t": (0, 0.5), "both": (0.6, 0.5)}[name]
        probs = frequency_check(model, view, rng)
        raise_probs[name] = 1.0 - probs[-1]  # legal actions end with CHALLENGE
    # c_s pushes towards raising, c_t towards challenging; here p2 - p1 = -0.35
    assert raise_probs["none"] in (0.0, 1.0)
    assert raise_probs["t"] <= raise_probs["none"] <= raise_probs["s"]
    assert 0 < raise_probs["both"] < 1


@pytest.mark.parametrize("spec", ["aggressive", "random", "bluff:0.35", "quantal:temperature=0.7",
                                  "quantal:reads=true"])
def test_other_stochastic_frequencies_match_probabilities(spec):
    config = GameConfig(num_players=2, dice=3)
    model = make_player(spec)
    model.reset(0, config)
    rng = np.random.default_rng(13)
    for history in [(), ((1, Bid(2, 6)),), ((1, Bid(4, 3)),), ((1, Bid(6, 5)),)]:
        frequency_check(model, view_for(config, (1, 0, 0, 2, 0, 0), (3, 3), history), rng)


def test_uniform_difference_sf_matches_numerical_integration():
    grid = (np.arange(4000) + 0.5) / 4000
    for a, b in [(0.6, 0.5), (0.2, 1.0), (1.0, 0.0), (0.0, 0.3), (0.0, 0.0)]:
        xs = a * grid[:, None] - b * grid[None, :]  # midpoint rule on [0, a] x [0, b]
        for d in [-1.2, -0.55, -0.3, -0.05, 0.0, 0.1, 0.45, 0.7]:
            if a == b == 0:
                expected = float(0 > d)
            elif a == 0 or b == 0:
                expected = float(np.mean((a * grid - b * grid) > d))
            else:
                expected = float(np.mean(xs > d))
            assert uniform_difference_sf(np.array([d]), a, b)[0] == pytest.approx(expected, abs=1e-3), (a, b, d)


# --- exactness and vectorization ------------------------------------------------------------------

def test_bid_true_probability_is_the_exact_binomial_tail():
    """Against enumeration of every unseen hand with its multinomial probability."""
    config = GameConfig(num_players=2, dice=(3, 4))
    unseen_hands = all_hands(4, 6)
    weights = np.array([math.factorial(4) / np.prod([math.factorial(int(c)) for c in h]) for h in unseen_hands])
    weights /= 6**4
    own = all_hands(3, 6)
    view = view_for(config, own[0], (3, 4))
    for bid in [Bid(3, 4), Bid(2, 1), Bid(5, 6), Bid(7, 2)]:
        got = bid_true_probability(own, view, bid)
        table = (unseen_hands[:, bid.face - 1] + (unseen_hands[:, 0] if bid.face != 1 else 0))[None, :]
        mine = own[:, bid.face - 1] + (own[:, 0] if bid.face != 1 else 0)
        expected = ((mine[:, None] + table) >= bid.quantity) @ weights
        np.testing.assert_allclose(got, expected, atol=1e-12)


def test_bid_true_probability_when_every_unseen_die_surely_matches():
    """Two faces, ones wild: every die matches face 2 (p = 1), so a bid on 2s is true iff the table holds that
    many dice (the log-space tail must not turn 0 * log(0) into nan); a bid on the wild face has p = 1/2."""
    config = GameConfig(num_players=2, dice=(2, 3), faces=2)
    own = all_hands(2, 2)
    view = view_for(config, own[0], (2, 3))
    np.testing.assert_array_equal(bid_true_probability(own, view, Bid(5, 2)), np.ones(len(own)))
    ones_needed = 4 - own[:, 0]  # from the 3 unseen dice, each a one with probability 1/2
    expected = [sum(math.comb(3, k) for k in range(max(n, 0), 4)) / 8 for n in ones_needed]
    np.testing.assert_allclose(bid_true_probability(own, view, Bid(4, 1)), expected, atol=1e-12)


@pytest.mark.parametrize("spec", SPECS)
def test_vectorized_probabilities_equal_row_by_row(spec):
    config = GameConfig(num_players=2, dice=3)
    model = make_player(spec)
    model.reset(1, config)
    hands = all_hands(3, 6)
    for history in [(), ((0, Bid(2, 4)),), ((0, Bid(5, 1)),)]:
        view = view_for(config, hands[0], (3, 3), history, seat=1).public()
        for action in view.legal_actions():
            together = model.action_probabilities(hands, view, action)
            alone = np.array([model.action_probabilities(h[None, :], view, action)[0] for h in hands])
            if spec.startswith("quantal"):  # numpy's exp may round a value in a vector lane an ulp off the lone one
                np.testing.assert_allclose(together, alone, rtol=1e-13, atol=0.0)
            else:
                np.testing.assert_array_equal(together, alone)


# --- each family's rule on hand-made states -------------------------------------------------------

def test_oehm_rule():
    config = GameConfig(num_players=2, dice=5)
    model = OehmPlayer(bluff=0.0)
    hand = (1, 0, 0, 2, 1, 1)  # fours + the wild one: 3 matching fours
    view = view_for(config, hand, (5, 5), ((1, Bid(4, 2)),))
    p_true = float(bid_true_probability(np.array([hand]), view.public(), Bid(4, 2))[0])  # need 3 of 5 at 1/3
    assert p_true == pytest.approx(sum(math.comb(5, k) * (1 / 3) ** k * (2 / 3) ** (5 - k) for k in range(3, 6)))
    probs = {a: model.action_probabilities(np.array([hand]), view.public(), a)[0] for a in view.legal_actions()}
    assert probs[CHALLENGE] == pytest.approx(1 - p_true)
    assert probs[Bid(5, 4)] == pytest.approx(p_true)  # quantity + 1 on the face it holds most of
    assert sum(probs.values()) == pytest.approx(1.0)
    top = view_for(config, hand, (5, 5), ((1, Bid(10, 2)),))
    assert model.act(top, np.random.default_rng(0)) is CHALLENGE  # no +1 raise left
    bluffer = OehmPlayer(bluff=1.0)  # always a uniform face
    p = bluffer.action_probabilities(np.array([hand]), view.public(), Bid(5, 2))[0]
    assert p == pytest.approx(p_true / 6)


def test_burcsi_nagy_without_nudges_raises_iff_p2_beats_p1():
    config = GameConfig(num_players=2, dice=5)
    model = BurcsiNagyPlayer(s=0.0, t=0.0)
    model.reset(0, config)
    rng = np.random.default_rng(0)
    hand = (0, 0, 0, 3, 0, 2)  # three 4s, two 6s, no wild
    # 3x4 and 2x6 are both certain: ties go to the higher face
    assert model.act(view_for(config, hand, (5, 5), ((1, Bid(2, 4)),)), rng) == Bid(2, 6)
    assert model.act(view_for(config, hand, (5, 5), ((1, Bid(3, 6)),)), rng) == Bid(4, 4)  # p2 = 0.87 > p1 = 0.13
    assert model.act(view_for(config, hand, (5, 5), ((1, Bid(8, 2)),)), rng) is CHALLENGE
    assert model.act(view_for(config, hand, (5, 5)), rng) == Bid(1, 6)  # the opener always raises


def test_aggressive_rule_and_fallbacks():
    full = GameConfig(num_players=2, dice=3)
    dist = AggressivePlayer.distribution
    assert dist(view_for(full, (3, 0, 0, 0, 0, 0), (3, 3), ((1, Bid(2, 3)),))) == {
        CHALLENGE: 0.5, Bid(3, 3): 0.25, Bid(2, 4): 0.25}
    assert dist(view_for(full, (3, 0, 0, 0, 0, 0), (3, 3), ((1, Bid(2, 6)),))) == {CHALLENGE: 0.5, Bid(3, 6): 0.5}
    assert dist(view_for(full, (3, 0, 0, 0, 0, 0), (3, 3), ((1, Bid(6, 2)),))) == {CHALLENGE: 0.5, Bid(6, 3): 0.5}
    assert dist(view_for(full, (3, 0, 0, 0, 0, 0), (3, 3), ((1, Bid(6, 6)),))) == {CHALLENGE: 1.0}
    assert dist(view_for(full, (3, 0, 0, 0, 0, 0), (3, 3))) == {Bid(1, f): 1 / 6 for f in range(1, 7)}
    sixes = GameConfig(num_players=2, dice=3, bids="sixes")
    assert dist(view_for(sixes, (3, 0, 0, 0, 0, 0), (3, 3), ((1, Bid(2, 6)),))) == {CHALLENGE: 0.5, Bid(3, 6): 0.5}


def test_conservative_bids_only_what_its_hand_makes_true():
    config = GameConfig(num_players=2, dice=5)
    model = ConservativePlayer()
    rng = np.random.default_rng(0)
    hand = (1, 0, 2, 0, 0, 2)  # one wild one, two 3s, two 6s: 3 matching threes and sixes, 1 one
    assert model.act(view_for(config, hand, (5, 5)), rng) == Bid(1, 1)  # smallest true bid
    assert model.act(view_for(config, hand, (5, 5), ((1, Bid(2, 4)),)), rng) == Bid(2, 6)
    assert model.act(view_for(config, hand, (5, 5), ((1, Bid(3, 3)),)), rng) == Bid(3, 6)
    assert model.act(view_for(config, hand, (5, 5), ((1, Bid(3, 6)),)), rng) is CHALLENGE
    sixes = GameConfig(num_players=2, dice=2, bids="sixes")
    assert model.act(view_for(sixes, (0, 2, 0, 0, 0, 0), (2, 2)), rng) == Bid(1, 6)  # opener must bid


@pytest.mark.parametrize("bad", [
    lambda: OehmPlayer(bluff=1.5), lambda: OehmPlayer(bluff="x"), lambda: BurcsiNagyPlayer(s=-0.1),
    lambda: BurcsiNagyPlayer(t=float("inf")), lambda: make_player("oehm:2"), lambda: make_player("burcsi-nagy:u=1"),
    lambda: QuantalEstimate(0), lambda: QuantalEstimate(-1.0), lambda: QuantalEstimate(float("nan")),
    lambda: QuantalEstimate(True), lambda: make_player("quantal:temperature=x"), lambda: QuantalEstimate(reads=1),
    lambda: QuantalEstimate(fit=1),
])
def test_parameters_are_validated(bad):
    with pytest.raises(ValueError, match="bluff|BurcsiNagyPlayer|burcsi-nagy|QuantalEstimate.(temperature|reads|fit)"):
        bad()


def test_quantal_is_the_logit_of_the_estimate_rule():
    """At temperature T: P(challenge) = logistic((q - e) / T) with e the bid face's estimate, each raise in
    proportion to exp((e(face) - quantity) / T); cold, it challenges where the one-third rule does (no estimate equal
    to the bid here: there it would challenge half the time)."""
    config = GameConfig(num_players=3, dice=3)
    hand = (1, 0, 2, 0, 0, 0)  # one wild one, two threes: e(3) = 3 + 6/3 = 5, e(other faces) = 1 + 2 = 3
    view = view_for(config, hand, (3, 3, 3), ((2, Bid(4, 3)),)).public()
    model = QuantalEstimate(temperature=0.5)
    raises = [a for a in view.legal_actions() if isinstance(a, Bid)]
    logits = np.array([((5.0 if b.face == 3 else 3.0 if b.face != 1 else 1.0 + 6 / 6) - b.quantity) / 0.5
                       for b in raises])
    challenge = 1.0 / (1.0 + np.exp(-(4 - 5.0) / 0.5))
    expected = (1.0 - challenge) * np.exp(logits) / np.exp(logits).sum()
    got = np.array([model.action_probabilities(np.array([hand]), view, b)[0] for b in raises])
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert model.action_probabilities(np.array([hand]), view, CHALLENGE)[0] == pytest.approx(challenge, rel=1e-12)
    hands = hand_support(3, 6)[0]  # with 4 unseen dice no estimate is a whole number: no ties with the quantity
    cold, rule = QuantalEstimate(temperature=1e-3), make_player("one-third")
    for bid in (Bid(4, 3), Bid(5, 6), Bid(3, 1)):
        at = view_for(config, hand, (3, 2, 2), ((2, bid),)).public()
        np.testing.assert_allclose(cold.action_probabilities(hands, at, CHALLENGE),
                                   rule.action_probabilities(hands, at, CHALLENGE), atol=1e-6)


def test_reading_quantal_counts_the_others_at_their_posterior():
    """reads=true: each bid this round updates its author's hand by the non-reading policy's likelihood (the exact
    posterior, by hand here), and the estimate counts each other seat at its posterior's expected matching dice; with
    no bid yet it is the non-reading estimate."""
    config = GameConfig(num_players=3, dice=2)
    plain, reader = QuantalEstimate(), QuantalEstimate(reads=True)
    assert reader.name == "quantal:reads=true" and make_player(reader.name).reads
    dice, hand = (2, 2, 2), (0, 1, 0, 0, 1, 0)
    opening = view_for(config, hand, dice).public()
    for action in opening.legal_actions():
        np.testing.assert_allclose(reader.action_probabilities(np.array([hand]), opening, action),
                                   plain.action_probabilities(np.array([hand]), opening, action), rtol=1e-12)
    history = ((1, Bid(2, 5)), (2, Bid(3, 5)), (0, Bid(3, 6)), (1, Bid(4, 5)))  # seat 1 bids twice
    support, prior = hand_support(2, 6)
    match = support @ match_matrix(config)
    posterior = {1: prior, 2: prior}
    for k, (seat, bid) in enumerate(history):
        at = PlayerView(config, seat, dice, history[:k], hand=(2, 0, 0, 0, 0, 0)).public()
        if seat != 0:  # the reader's own bids do not move its estimate
            weights = posterior[seat] * plain.action_probabilities(support, at, bid)
            posterior[seat] = weights / weights.sum()
    view = view_for(config, hand, dice, history).public()
    estimate = np.array(hand) @ match_matrix(config) + posterior[1] @ match + posterior[2] @ match
    assert estimate[4] > 1 + 4 / 3 + 0.2  # the bids on fives moved the estimate of fives up
    challenge = 1.0 / (1.0 + np.exp(-(4 - estimate[4])))
    assert reader.action_probabilities(np.array([hand]), view, CHALLENGE)[0] == pytest.approx(challenge, rel=1e-12)
    raises = [a for a in view.legal_actions() if isinstance(a, Bid)]
    logits = np.array([estimate[b.face - 1] - b.quantity for b in raises])
    expected = (1.0 - challenge) * np.exp(logits) / np.exp(logits).sum()
    got = np.array([reader.action_probabilities(np.array([hand]), view, b)[0] for b in raises])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


class Watched:
    """A seated player whose events a model also observes (the model of its seat, reset for it)."""

    def __init__(self, player, model):
        self.player, self.model = player, model

    def reset(self, seat, config):
        self.player.reset(seat, config)
        self.model.reset(seat, config)

    def act(self, view, rng):
        return self.player.act(view, rng)

    def observe(self, event):
        self.player.observe(event)
        self.model.observe(event)


@pytest.mark.parametrize("rules", [None, "perudo"])
@pytest.mark.parametrize("spec, fitted", [("one-third", min), ("random", max)])
def test_fitted_quantal_finds_the_temperature_of_the_bids_it_is_shown(rules, spec, fitted):
    """fit=true: after each round the temperature and the reading are the likeliest of the grid for the seat's raises
    and challenges shown so far; the one-third rule, the non-reading rule's cold limit, comes out coldest, a uniform
    random player hottest; a new game starts from the given model again, and fit=false never moves."""
    from ldpomdp.players.quantal import FAMILY_TEMPERATURES
    config = GameConfig(num_players=3, dice=3) if rules is None else GameConfig.preset(rules, num_players=3, dice=3)
    model, still = QuantalEstimate(reads=True, fit=True), QuantalEstimate(reads=True)
    assert model.name == "quantal:fit=true,reads=true" and make_player(model.name).fit
    play_game(config, [Watched(make_player(spec), model), make_player("one-third"),
                       Watched(make_player("one-third"), still)], 3)
    assert model.temperature == fitted(FAMILY_TEMPERATURES)
    assert still.temperature == 1.0 and still.reads
    model.reset(0, config)
    assert model.temperature == 1.0 and model.reads and not model._fitted.any()


def test_fitted_quantal_takes_evidence_from_an_earlier_game_and_refuses_what_it_cannot_fit():
    """``add_evidence`` adds another model's ``evidence()`` (a match's earlier game) and plays the likeliest model;
    evidence that tells no model apart keeps the one played; a model that does not fit, or evidence of another
    shape or not finite, is refused."""
    config = GameConfig(num_players=3, dice=3)
    seen = QuantalEstimate(reads=True, fit=True)
    play_game(config, [Watched(make_player("random"), seen), make_player("one-third"), make_player("one-third")], 3)
    fresh = QuantalEstimate(reads=True, fit=True)
    fresh.reset(0, config)
    fresh.add_evidence(np.zeros_like(seen.evidence()))
    assert (fresh.reads, fresh.temperature) == (True, 1.0)
    fresh.add_evidence(seen.evidence())
    np.testing.assert_array_equal(fresh.evidence(), seen.evidence())
    assert (fresh.reads, fresh.temperature) == (seen.reads, seen.temperature) and fresh.temperature > 1.0
    for model, evidence, problem in ((QuantalEstimate(), seen.evidence(), "fit=false"),
                                     (fresh, np.zeros(3), "shape \\(3,\\)"),
                                     (fresh, np.full_like(seen.evidence(), np.nan), "values that are not finite")):
        with pytest.raises(UsageError, match=f"add_evidence: needs fit=true.*got {problem}"):
            model.add_evidence(evidence)


def test_fitted_quantal_keeps_its_model_when_a_round_tells_none_apart():
    """A round whose only shown action is forced (a challenge of the highest bid) is as likely under every model:
    the fit keeps the model it played, not the last one it tried."""
    config, dice = GameConfig(num_players=3, dice=1), (1, 1, 1)
    opening = [a for a in PublicView(config, 0, dice).legal_actions() if isinstance(a, Bid)]
    top = next(b for b in opening if not any(isinstance(a, Bid)
                                             for a in PublicView(config, 1, dice, ((0, b),)).legal_actions()))
    model = QuantalEstimate(reads=True, fit=True)
    model.reset(1, config)
    model.observe(RoundStart(0, dice, 0))
    model.observe(ActionTaken(0, top, PublicView(config, 0, dice)))
    model.observe(ActionTaken(1, CHALLENGE, PublicView(config, 1, dice, ((0, top),))))
    model.observe(RoundEnd(0, ((0, 0, 0, 0, 0, 1),) * 3, top, 0, 1, 1, 3, (1, 0, 1)))  # the bid was true
    assert not model.evidence().any() and (model.reads, model.temperature) == (True, 1.0)


def test_fitted_quantal_keeps_reading_bids_when_only_openings_were_shown():
    """An opening bid has no bids before it to read, so it is as likely read or not: the fit picks the temperature
    and keeps the reading it played (not the row that comes first)."""
    from ldpomdp.players.quantal import FAMILY_TEMPERATURES
    config, dice = GameConfig(num_players=3, dice=2), (2, 2, 2)
    model = QuantalEstimate(reads=True, fit=True)
    model.reset(0, config)
    model.observe(RoundStart(0, dice, 0))
    model.observe(ActionTaken(0, Bid(2, 3), PublicView(config, 0, dice)))
    model.observe(ActionTaken(1, CHALLENGE, PublicView(config, 1, dice, ((0, Bid(2, 3)),))))
    hands = ((0, 0, 2, 0, 0, 0), (1, 0, 0, 1, 0, 0), (0, 1, 0, 0, 0, 1))
    model.observe(RoundEnd(0, hands, Bid(2, 3), 0, 1, 1, 3, (2, 1, 2)))  # the bid was true
    evidence = model.evidence()
    np.testing.assert_allclose(evidence[0], evidence[1], rtol=0, atol=1e-12)
    assert np.ptp(evidence) > 0
    assert (model.reads, model.temperature) == (True, FAMILY_TEMPERATURES[int(np.argmax(evidence[1]))])


def test_reading_quantal_in_the_sixes_game_reads_matching_counts_as_every_hand_would():
    """In the sixes game the reader's posteriors are over matching counts (``solver_hands``): each count's posterior
    is the every-hand posterior summed over the hands with that count, so the play is the same (and 35 dice cheap)."""
    config = GameConfig(num_players=3, dice=3, bids="sixes")
    plain, reader = QuantalEstimate(), QuantalEstimate(reads=True)
    dice = (3, 3, 3)
    history = ((1, Bid(1, 6)), (2, Bid(2, 6)), (0, Bid(3, 6)), (1, Bid(4, 6)))  # each raise is by one six
    support, prior = hand_support(3, 6)
    sixes = (support @ match_matrix(config))[:, 5]
    posterior = {1: prior, 2: prior}
    for k, (seat, bid) in enumerate(history):
        if seat != 0:
            at = PlayerView(config, seat, dice, history[:k], hand=(3, 0, 0, 0, 0, 0)).public()
            weights = posterior[seat] * plain.action_probabilities(support, at, bid)
            posterior[seat] = weights / weights.sum()
    read = reader.posteriors(config, dice, history)
    for seat in (1, 2):
        by_count = np.bincount(sixes, weights=posterior[seat], minlength=4)
        np.testing.assert_allclose(read[seat], by_count, atol=1e-12)
        assert len(read[seat]) == 4  # one hand per matching count, 0-3
    assert not np.allclose(read[1], np.bincount(sixes, weights=prior, minlength=4))  # the bids moved it


# --- broken user classes fail loudly, naming themselves ----------------------------------------------

class IllegalBot(RandomPlayer):
    """Claims the random player's probabilities but always bids one two (illegal over most bids)."""

    name = None  # no display name: errors fall back to the class name

    def act(self, view, rng):
        return Bid(1, 2)


class OverconfidentBot(RandomPlayer):
    def action_probabilities(self, hands, view, action):
        return super().action_probabilities(hands, view, action) * 1.5 + 1.0


class LeakyBot(RandomPlayer):
    def action_probabilities(self, hands, view, action):
        return super().action_probabilities(hands, view, action) * 0.9


class TwoFacedBot(RandomPlayer):
    """Honest per-hand probabilities, but a shortcut claiming it always challenges."""

    def action_probabilities(self, hands, view, action):
        return np.full(len(hands), RandomPlayer.shared_probability(self, view, action))

    def shared_probability(self, view, action):
        return float(action is CHALLENGE)


def test_a_shortcut_that_disagrees_with_the_probabilities_is_named():
    with pytest.raises(ValueError, match=r"TwoFacedBot \(.random.\).shared_probability gives .* for every hand, but "
                                         r"action_probabilities gives"):
        check_opponent(TwoFacedBot(), GameConfig(num_players=2, dice=3), np.random.default_rng(0), n_states=20)


class FaceLiar(OneThirdRule):
    """The one-third rule's probabilities, but a shortcut claiming the count of fives decides every move (a subclass
    of the class that defines ``action_probabilities``, so beliefs would trust it)."""

    def deciding_face(self, view):
        return None if view.bid is None else 5


def test_a_deciding_face_that_disagrees_with_the_probabilities_is_named():
    check_opponent(OneThirdRule(bluff=0.3), CONFIGS["sixes-ones-wild"], np.random.default_rng(0), n_states=60)
    with pytest.raises(ValueError, match=r"FaceLiar \(.one-third.\).deciding_face says face 5's matching count "
                                         r"decides, but action_probabilities gives"):
        check_opponent(FaceLiar(), CONFIGS["sixes-ones-wild"], np.random.default_rng(0), n_states=60)


def test_illegal_action_is_named():
    config = GameConfig(num_players=2, dice=3)
    with pytest.raises(IllegalActionError, match=r"IllegalBot.act played the illegal action"):
        check_opponent(IllegalBot(), config, np.random.default_rng(0), n_states=20)
    with pytest.raises(IllegalActionError, match="IllegalBot"):
        play_game(config, [IllegalBot(), RandomPlayer()], np.random.default_rng(0))


@pytest.mark.parametrize("bot, message", [
    (OverconfidentBot,
     r"OverconfidentBot \(.random.\): random.action_probabilities returned values outside \[0, 1\].*state"),
    (LeakyBot, r"LeakyBot \(.random.\).action_probabilities sums to 0.9 \(not 1\) over the legal actions for hand"),
])
def test_bad_probabilities_are_named(bot, message):
    with pytest.raises(ValueError, match=message):
        check_opponent(bot(), GameConfig(num_players=2, dice=3), np.random.default_rng(0), n_states=20)


def test_act_inconsistent_with_probabilities_is_named():
    class Liar(OneThirdRule):
        def act(self, view, rng):
            return view.legal_actions()[0]  # the smallest bid, whatever the rule says

    with pytest.raises(ValueError, match=r"Liar \(.one-third.\).act played .* probability 0"):
        check_opponent(Liar(), GameConfig(num_players=2, dice=3), np.random.default_rng(0), n_states=50)


def test_a_player_without_probabilities_is_rejected():
    class NoModel(BaseOpponent):
        def act(self, view, rng):
            return view.legal_actions()[0]

    with pytest.raises(ValueError, match="NoModel has no action_probabilities"):
        check_opponent(NoModel(), GameConfig(), np.random.default_rng(0))


def test_view_memo_reuses_a_policy_only_for_the_same_read_only_hands_and_view():
    support = hand_support(2, 6)[0]  # read-only, cached
    config = GameConfig(num_players=2, dice=2)
    view, other = PublicView(config, 1, (2, 2), ((0, Bid(2, 3)),)), PublicView(config, 1, (2, 2), ((0, Bid(2, 3)),))
    memo, calls = ViewMemo(), []

    def compute(tag: str):
        calls.append(tag)
        return tag

    assert memo.get(support, view, lambda: compute("a")) == memo.get(support, view, lambda: compute("b")) == "a"
    assert memo.get(support, other, lambda: compute("c")) == "c"  # an equal view, but another object
    writeable = support.copy()
    assert memo.get(writeable, view, lambda: compute("d")) == "d"
    writeable[0] = writeable[1]  # changed in place: never answered from the memo
    assert memo.get(writeable, view, lambda: compute("e")) == "e"
    seen = np.broadcast_to(writeable, writeable.shape)  # read-only, but a view of a writeable array
    assert memo.get(seen, view, lambda: compute("f")) == "f" and memo.get(seen, view, lambda: compute("g")) == "g"
    assert calls == ["a", "c", "d", "e", "f", "g"]
    for model in (OneThirdRule(), OehmPlayer(0.2)):  # an answer changed by its caller does not change the next
        answer = model.action_probabilities(support, view, CHALLENGE)
        kept = answer.copy()
        answer *= 0.0
        np.testing.assert_array_equal(model.action_probabilities(support, view, CHALLENGE), kept)
    for model in (OneThirdRule(), OehmPlayer(0.2)):  # the memo answers as the policy does, action by action
        for action in view.legal_actions()[:8]:
            np.testing.assert_array_equal(model.action_probabilities(support, view, action),
                                          model.action_probabilities(support.copy(), view, action))
