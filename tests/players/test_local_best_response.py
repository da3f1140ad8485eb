"""Local best response: never above the exact best response, close to it on small rounds, the player follows the
round's LBR strategy, and it beats the policies it is built against in the full game."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from test_mixture import Watched

import ldpomdp.players.lbr_search as lbr_search
from ldpomdp.errors import UsageError
from ldpomdp.exact import cached_solution, exploitability, policy_behaviour
from ldpomdp.exact.two_player.states import RoundOutcome
from ldpomdp.game import ActionTaken, PlayerView, PublicView, RoundEnd, RoundStart, play_game, rotate
from ldpomdp.hands import hand_support, solver_hands
from ldpomdp.players.cfr import CFRPlayer
from ldpomdp.players.lbr import LocalBestResponse
from ldpomdp.players.lbr_search import (
    HandRange,
    candidate_raises,
    lbr_behaviour,
    local_best_response,
    lookahead_values,
    table_lookahead_values,
)
from ldpomdp.players.robust import RobustPlayer
from ldpomdp.registry import make_player
from ldpomdp.rules import CHALLENGE, EXACT, Bid, GameConfig, legal_actions, match_matrix
from ldpomdp.sweeps import exploitability_lower_bound, wilson_interval

POLICIES = ["one-third", "random", "oehm:0.2", "bluff:0.3", "aggressive", "nash"]


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path))


@pytest.mark.parametrize("faces", [4, 6])
@pytest.mark.parametrize("spec", POLICIES)
def test_one_round_lbr_is_a_lower_bound_close_to_the_exact_exploitability(spec, faces):
    config = GameConfig(num_players=2, dice=1, faces=faces)
    exact = exploitability(make_player(spec), config)
    lbr = local_best_response(make_player(spec), config)
    for bound, true in ((lbr.as_opener, exact.as_opener), (lbr.as_responder, exact.as_responder)):
        assert bound <= true + 1e-9
    # exact figures (no sampling): LBR recovers most of what a best responder wins
    assert lbr.average >= 0.85 * exact.average - 1e-9, (lbr, exact)


@pytest.mark.parametrize("wild", [1, 3])
@pytest.mark.parametrize("spec", POLICIES)
def test_lbr_is_a_lower_bound_at_two_dice_each(spec, wild):
    config = GameConfig(num_players=2, dice=2, faces=3, wild=wild)
    exact = exploitability(make_player(spec), config)
    lbr = local_best_response(make_player(spec), config)
    assert lbr.as_opener <= exact.as_opener + 1e-9 and lbr.as_responder <= exact.as_responder + 1e-9
    assert lbr.average >= 0.5 * exact.average - 0.03, (lbr, exact)  # nash: LBR may lose a little


def test_two_step_lookahead_finds_more_than_one_step():
    config = GameConfig(num_players=2, dice=1)
    one = local_best_response(make_player("random"), config, lookahead=1, raises="all")
    two = local_best_response(make_player("random"), config, lookahead=2, raises="all")
    assert two.average > one.average + 0.05


def test_candidate_raises():
    config = GameConfig(num_players=2, dice=2)
    actions = legal_actions(config, 4, Bid(1, 3))
    smallest = candidate_raises(actions, "smallest")
    assert smallest == [Bid(1, 4), Bid(1, 5), Bid(1, 6), Bid(2, 1), Bid(2, 2), Bid(2, 3)]
    assert candidate_raises(actions, "all") == [a for a in actions if a is not CHALLENGE]


class Recording(LocalBestResponse):
    """LBR that remembers (own hand, bids so far, action) of every decision."""

    def reset(self, seat, config):
        super().reset(seat, config)
        self.decisions = []

    def act(self, view, rng):
        action = super().act(view, rng)
        self.decisions.append((view.hand, tuple(a for _, a in view.history), action))
        return action


@pytest.mark.parametrize("spec", ["oehm:0.2", "mixture"])
def test_player_plays_the_rounds_lbr_strategy(spec):
    """The player's range (Bayes on every bid it saw) and outcome values (game values at one die each) give the
    same decisions as the round's LBR strategy computed on the tree from the policy's reach."""
    config = GameConfig(num_players=2, dice=1)
    tree = cached_solution(config).tree
    strategy = {}
    for role in (0, 1):
        policy = make_player(spec)
        policy.reset(role, config)
        behaviour = policy_behaviour(policy, tree, role)
        strategy[1 - role] = lbr_behaviour(policy, tree, role, behaviour)
    lbr, seen = Recording(spec), 0
    for g in range(40):
        seated, _ = rotate([lbr, make_player(spec)], g)
        play_game(config, seated, np.random.default_rng(g), first_opener=0)
        role = 0 if seated[0] is lbr else 1
        for hand, bids, action in lbr.decisions:
            node = tree.node_index[bids]
            row = tree.hand_index(role, np.array([hand]))[0]
            edges = np.arange(tree.edge_start[node], tree.edge_start[node + 1])
            chosen = edges[np.argmax(strategy[role][row, tree.edge_local[edges]])]
            assert tree.actions(int(node))[chosen - edges[0]] == action, (hand, bids, action)
            seen += 1
    assert seen >= 40  # at least one decision a game


@pytest.mark.parametrize("spec", ["one-third", "mixture"])
def test_lbr_beats_the_policy_in_the_full_game(spec):
    config, games = GameConfig(num_players=2, dice=3), 40
    lbr, wins = make_player(f"lbr:{spec}"), 0
    for g in range(games):
        seated, _ = rotate([lbr, make_player(spec)], g)
        record = play_game(config, seated, np.random.default_rng(g), first_opener=0)
        wins += seated[record.winner] is lbr
    # a fair coin passes 0.5 n + 3 sd with probability < 0.2%
    assert wins > games / 2 + 3 * math.sqrt(games) / 2, wins


def test_game_level_bound_at_one_die_estimates_the_one_round_lbr():
    """At one die each a game is one round, so LBR's mean payoff over games with rotated seats estimates the
    one-round LBR's exact average; the 95% interval of the bound must hold it (4 sd: a 1-in-15,000 miss)."""
    config = GameConfig(num_players=2, dice=1)
    exact = local_best_response(make_player("oehm:0.2"), config).average
    bound = exploitability_lower_bound("oehm:0.2", config, games=1000, seed=3)
    assert bound.games == 1000 and abs(bound.value - exact) <= 4 / math.sqrt(1000), (bound.value, exact)
    low, high = bound.interval
    assert low < bound.value < high and high - low < 0.15
    several = exploitability_lower_bound("burcsi-nagy:s=0.5,t=0.1", config, games=2)  # its lbr spec has brackets
    assert several.games == 2 and 0 <= several.wins <= 2


def test_range_is_bayes_on_the_policys_bids():
    config = GameConfig(num_players=2, dice=2)
    lbr, policy = LocalBestResponse("one-third"), make_player("one-third")
    lbr.reset(0, config)
    policy.reset(1, config)
    lbr.observe(RoundStart(0, (2, 2), 1))
    view = PublicView(config, 1, (2, 2))
    bid = policy.act(PlayerView(config, 1, (2, 2), hand=(0, 0, 0, 0, 2, 0)), np.random.default_rng(0))
    lbr.observe(ActionTaken(1, bid, view))
    likelihood = policy.action_probabilities(lbr.ranges[1].support, view, bid)
    prior = hand_support(2, 6)[1]
    assert 0 < likelihood.sum() < len(likelihood)
    np.testing.assert_allclose(lbr.ranges[1].weights, prior * likelihood / (prior * likelihood).sum())
    before = lbr.ranges[1].weights.copy()
    after = PublicView(config, 1, (2, 2), ((1, bid), (0, Bid(4, 6))))
    lbr.observe(ActionTaken(1, CHALLENGE, after))  # a challenge ends the round: no update
    np.testing.assert_array_equal(lbr.ranges[1].weights, before)


def test_planners_are_read_through_their_act():
    lbr = make_player("lbr:policy=expected-count")
    assert type(lbr.model).__name__ == "ReplayPolicy"
    config = GameConfig(num_players=2, dice=1)
    record = play_game(config, [lbr, make_player("expected-count")], np.random.default_rng(0))
    assert record.winner in (0, 1)


@pytest.mark.parametrize("players, spec", [(3, "lbr:[quantal:fit=true,reads=true],ends=fair"), (3, "robust"),
                                           (2, "robust:learn=true")])
def test_players_that_keep_public_events_are_watched_not_replayed(players, spec):
    """A local best response to a player with ``observed_probabilities`` (the search, ``robust``) watches a copy of
    it at each seat, which sees every event: no replay, and the copy's policy is the player's own, whole game."""
    lbr = LocalBestResponse(spec, ends="fair")
    assert type(lbr.model).__name__ == "Observing"
    seated = [lbr] + [make_player(spec) for _ in range(players - 1)]
    record = play_game(GameConfig(num_players=players, dice=2), seated, np.random.default_rng(1))
    assert record.winner in range(players)
    assert all(type(m).__name__ == "Observing" and m.player.seat == seat for seat, m in lbr.models.items())
    for seat, model in lbr.models.items():  # each copy learnt what the player at its seat learnt
        copy, real = model.player, seated[seat]
        if isinstance(real, RobustPlayer):
            assert (copy.won, copy._rounds_seen, copy.plays) == (real.won, real._rounds_seen, real.plays)
            if real.learn:
                np.testing.assert_array_equal(copy.model.posterior, real.model.posterior)
            copy, real = copy.search, real.search
        if real.models:
            assert copy.models.keys() == real.models.keys()
            for other, fitted in real.models.items():
                np.testing.assert_array_equal(copy.models[other].evidence(), fitted.evidence())


@pytest.mark.parametrize("kwargs, match", [
    ({"lookahead": 3}, "lookahead"), ({"raises": "some"}, "raises"), ({"policy": "nope"}, "nope"),
    ({"ends": "even"}, "ends"), ({"ends": "fair", "table": "blueprint.npz"}, "give one or the other"),
    ({"table": "blueprint.npz", "blueprints": print}, "give one or the other"),
    ({"copy_model": "one-third"}, "copy_model must be callable"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LocalBestResponse(**kwargs)


def test_refuses_a_table_without_a_blueprint(tmp_path):
    with pytest.raises(ValueError, match="at 4 players it values a round's ends by the blueprint \\(or by fair rounds: "
                                         "ends=fair\\).*solve equilibrium"):
        LocalBestResponse("random").reset(0, GameConfig(num_players=4, dice=2))
    with pytest.raises(ValueError, match="blueprints are solved on demand for 3 players up to 3 dice"):
        LocalBestResponse("random").reset(0, GameConfig.preset("perudo", num_players=3, dice=4))
    with pytest.raises(ValueError, match="table= names a blueprint for 3-6 players"):
        (tmp_path / "blueprint.npz").write_bytes(b"")  # never read: two players refuse it first
        LocalBestResponse("quantal", table=str(tmp_path / "blueprint.npz")).reset(0, GameConfig(dice=2))


# --- three and more seats ------------------------------------------------------------------------------------------

def test_fair_ends_value_each_loser_by_fair_rounds():
    """ends=fair: after the loser drops a die, LBR (seat 0) wins as fair rounds say, whoever called: by hand, from
    (1, 1, 1) each seat wins 1/3; from (2, 0, 1) seat 0 wins unless it loses two coin flips running (3/4). A bid
    that holds costs the challenger, one that misses the seat before it."""
    lbr = LocalBestResponse("one-third", ends="fair")
    assert lbr.name == "lbr:one-third,ends=fair" and make_player(lbr.name).ends == "fair"
    lbr.reset(0, GameConfig(num_players=3, dice=2))
    lbr.observe(RoundStart(0, (2, 1, 1), 0))
    by_loser = np.array([1 / 3, 3 / 4, 3 / 4])
    holds = np.arange(-4, 5) <= 0
    for caller, bidder in ((0, 2), (1, 0), (2, 1)):
        np.testing.assert_allclose(lbr._ends.challenge[caller], np.where(holds, by_loser[caller], by_loser[bidder]),
                                   rtol=0, atol=1e-12)
    assert lbr._ends.exact is None
    two = LocalBestResponse("one-third", ends="fair")
    two.reset(1, GameConfig(dice=2))
    assert type(two.values).__name__ == "FairRounds"


def test_fair_ends_value_a_right_exact_call_by_the_die_it_gives_back():
    """Under Perudo, from (1, 2, 0) of 2 dice each: seat 0's right exact call gives it its second die (then each of
    the 2 + 2 dice left as likely to be the next lost: seat 0 wins 1/2), seat 1's gives nothing (it has its 2: 1/4
    for seat 0, by hand); a wrong one costs the caller a die; the seat without dice gets 0."""
    lbr = LocalBestResponse("one-third", ends="fair")
    lbr.reset(0, GameConfig.preset("perudo", num_players=3, dice=2))
    lbr.observe(RoundStart(0, (1, 2, 0), 0))
    np.testing.assert_allclose(lbr._ends.exact, [[0.0, 1 / 2], [1 / 2, 1 / 4], [0.0, 0.0]], rtol=0, atol=1e-12)
    np.testing.assert_allclose(lbr._ends.challenge[0], np.where(np.arange(-3, 4) <= 0, 0.0, 1 / 2), rtol=0,
                               atol=1e-12)


def test_a_model_object_is_copied_for_each_other_seat():
    """Given a model object (not a spec), LBR at three players plays a game with a deep copy of it at each other
    seat (its memos copied empty)."""
    from ldpomdp.players.quantal import QuantalEstimate
    model = QuantalEstimate(reads=True)
    lbr = LocalBestResponse(model, ends="fair")
    record = play_game(GameConfig.preset("perudo", num_players=3, dice=2), [lbr, *map(make_player, ["one-third"] * 2)],
                       0)
    assert record.winner in range(3)
    assert all(copy is not model and copy.reads for copy in lbr.models.values())


def test_fair_ends_under_loss_by_the_difference():
    """Under Dudo, from (2, 1, 1) of 2 dice each, LBR at seat 0: a challenge's loser loses what the bid missed by
    (the challenger one more), then fair rounds; by hand, e.g. seat 0 challenging a bid that holds with 2 to spare
    loses its 2 dice (0), the bid missing by 2 takes seat 2's one die (3/4)."""
    lbr = LocalBestResponse("one-third", ends="fair")
    lbr.reset(0, GameConfig.preset("dudo", num_players=3, dice=2))
    lbr.observe(RoundStart(0, (2, 1, 1), 0))
    m = {missed: missed + 4 for missed in range(-4, 5)}  # the column of a bid that missed by ``missed``
    challenge = lbr._ends.challenge
    assert [challenge[0, m[k]] for k in (-2, -1, 0, 1, 2)] == pytest.approx([0.0, 0.0, 1 / 3, 3 / 4, 3 / 4])
    assert [challenge[1, m[k]] for k in (-1, 0, 1, 2)] == pytest.approx([3 / 4, 3 / 4, 1 / 3, 0.0])


@pytest.mark.parametrize("players, preset", [(5, None), (6, None), (3, "perudo"), (4, "perudo"), (3, "dudo")])
def test_fair_ends_beat_one_third_without_a_blueprint(players, preset):
    """lbr:quantal,ends=fair needs no blueprint (five and six seats, Perudo's and Dudo's rules): over 60 games of 2
    dice each against one-third at every other seat (LBR's seat rotated), its 95% interval lies above the fair share
    1/N."""
    config = GameConfig(num_players=players, dice=2)
    config, games, wins = config if preset is None else GameConfig.preset(preset, num_players=players, dice=2), 60, 0
    for seed in range(games):
        lbr = make_player("lbr:quantal,ends=fair")
        seated = [lbr] + [make_player("one-third") for _ in range(players - 1)]
        seated = seated[seed % players:] + seated[:seed % players]
        record = play_game(config, seated, np.random.default_rng(seed))
        wins += seated[record.winner] is lbr
    assert wilson_interval(wins, games)[0] > 1 / players, wins


@pytest.mark.parametrize("spec, preset", [("one-third", None), ("oehm:0.2", None), ("cfr", None),
                                          ("one-third", "perudo"), ("quantal", "perudo")])
def test_table_lookahead_at_two_seats_is_the_two_player_lookahead(spec, preset):
    """With two seats, and round ends worth the same whoever called (the two-player lookahead's even-odds
    continuation has LBR call, the table's averages over the callers), the table's lookahead values every candidate
    as the two-player lookahead does, under today's rules and Perudo's (exact calls and ones' bids)."""
    config = GameConfig(dice=3) if preset is None else GameConfig.preset(preset, dice=3)
    lbr = LocalBestResponse(spec)
    lbr.reset(0, config)
    lbr.observe(RoundStart(0, (3, 2), 1))
    rng = np.random.default_rng(5)
    r, t = lbr.ranges[1], 5
    own = np.array([[1, 0, 2, 0, 0, 0]]) @ match_matrix(config)
    lose, win, regain, given = rng.random(4)  # LBR's value when it loses the die, when the other seat does; when
    # its exact call is right, when the other seat's is
    missed = np.arange(-t, t + 1)  # by how many dice the bid missed (<= 0: it holds, the caller loses)
    exact = np.array([[lose, regain], [win, given]]) if config.exact_call else None  # [caller, right]
    ends = RoundOutcome(np.array([np.where(missed <= 0, lose, win), np.where(missed <= 0, win, lose)]), exact, t)
    histories = [(), ((1, Bid(2, 4)),), ((1, Bid(1, 6)), (0, Bid(2, 3)), (1, Bid(3, 3)))]
    histories.append(((1, Bid(1, 1)),) if preset is None else ((1, Bid(2, 4)), (0, Bid(1, 1))))  # Perudo: ones later
    for history in histories:
        view = PublicView(config, 0, (3, 2), history)
        weights = rng.dirichlet(np.ones(len(r.support)))
        for lookahead in (1, 2):
            two = lookahead_values(lbr.model, view, own, r.matching, r.support, weights, ends, lookahead)
            table = table_lookahead_values({1: lbr.model}, view, own[0], {1: HandRange(r.support, r.matching, weights)},
                                           ends, lookahead)
            assert table[0] == two[0]
            np.testing.assert_allclose(table[1], two[1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("preset", [None, "perudo", "dudo"])
def test_table_lookahead_values_every_candidate_by_brute_force(monkeypatch, preset):
    """Four seats, one out of dice, LBR at seat 2 facing a standing bid (the turn wraps round), every raise a
    candidate, no reply skipped: each value is the sum over the others' hands of LBR's call, or of the next seat's
    call or reply and the seat after it calling that reply, each end as ``ends`` says by caller and what the bid
    missed by (under Perudo, exact calls right or wrong)."""
    monkeypatch.setattr(lbr_search, "REPLY_MASS", 0.0)
    config = GameConfig(num_players=4, dice=2) if preset is None else GameConfig.preset(preset, num_players=4, dice=2)
    perudo = preset == "perudo"
    dice, me = (1, 0, 2, 1), 2
    models = {3: make_player("oehm:0.2"), 0: make_player("random" if perudo else "one-third")}  # random: exact calls
    for seat, model in models.items():
        model.reset(seat, config)
    match = match_matrix(config)
    rng = np.random.default_rng(3)
    ranges = {}
    for seat in (3, 0):
        support = hand_support(dice[seat], 6)[0]
        ranges[seat] = HandRange(support, support @ match, rng.dirichlet(np.ones(len(support))))
    ends = RoundOutcome(rng.random((4, 9)), rng.random((4, 2)) if perudo else None, 4)  # 4 dice on the table
    calls = (CHALLENGE, EXACT) if perudo else (CHALLENGE,)
    own_hand = np.array([0, 0, 1, 0, 1, 0])
    history = ((3, Bid(1, 3)), (0, Bid(2, 3)))  # seat 3 opened, seat 0 raised
    view = PublicView(config, me, dice, history)
    later = {2: 3, 3: 0, 0: 2}
    neutral = np.mean([ends.challenge[s, 4] + ends.challenge[later[s], 5] for s in later]) / 2  # s loses, called or not
    actions, values = table_lookahead_values(models, view, own_hand @ match, ranges, ends, 2, raises="all")
    with pytest.raises(ValueError, match="a role per seat \\(4\\) and the round's 4 dice, got 2 roles"):
        table_lookahead_values(models, view, own_hand @ match, ranges, RoundOutcome(np.zeros((2, 9)), None, 4))

    def end(call, caller: int, bid: Bid, h3: int, h0: int) -> float:
        total = sum(int(hand @ match[:, bid.face - 1]) for hand in (own_hand, ranges[3].support[h3],
                                                                     ranges[0].support[h0]))
        if call is EXACT:
            return ends.exact[caller, int(total == bid.quantity)]
        return ends.challenge[caller, bid.quantity - total + 4]

    assert len(actions) > 10 and (EXACT in actions) == perudo
    exact_mass = 0.0  # how much the brute force weighs the others' exact calls (Perudo: it must be tested)
    for action, value in zip(actions, values[0], strict=True):
        expected = 0.0
        for h3, h0 in itertools.product(range(len(ranges[3].support)), range(len(ranges[0].support))):
            p = ranges[3].weights[h3] * ranges[0].weights[h0]
            if not isinstance(action, Bid):
                expected += p * end(action, me, view.bid, h3, h0)
                continue
            after = PublicView(config, 3, dice, history + ((me, action),))
            hand3, hand0 = ranges[3].support[h3:h3 + 1], ranges[0].support[h0:h0 + 1]
            for call in calls:
                expected += p * models[3].action_probabilities(hand3, after, call)[0] * end(call, 3, action, h3, h0)
            for reply in legal_actions(config, sum(dice), action):
                if isinstance(reply, Bid):
                    again = PublicView(config, 0, dice, history + ((me, action), (3, reply)))
                    replied = p * models[3].action_probabilities(hand3, after, reply)[0]
                    for call in calls:
                        called = models[0].action_probabilities(hand0, again, call)[0]
                        expected += replied * called * (end(call, 0, reply, h3, h0) - neutral)
                        exact_mass += replied * called * (call is EXACT)
                    expected += replied * neutral
        assert value == pytest.approx(expected, abs=1e-12)
    assert (exact_mass > 0.0) == perudo


def test_lbr_beats_two_one_third_at_three_players():
    """Three players, 3 dice each, the shipped blueprint valuing the ends: LBR's 95% interval over 30 games lies
    above the fair third (seats rotated)."""
    config, games, wins = GameConfig(num_players=3, dice=3), 30, 0
    for seed in range(games):
        lbr = make_player("lbr:one-third")
        seated = [lbr, make_player("one-third"), make_player("one-third")]
        seated = seated[seed % 3:] + seated[:seed % 3]
        record = play_game(config, seated, np.random.default_rng(seed))
        wins += seated[record.winner] is lbr
    assert wilson_interval(wins, games)[0] > 1 / 3, wins


# --- under the rule variants ---------------------------------------------------------------------------------------

VARIANT_ROUNDS = [GameConfig.preset("perudo", dice=1, faces=4), GameConfig.preset("perudo", dice=2, faces=3),
                  GameConfig.preset("dudo", dice=2, faces=3), GameConfig(dice=2, faces=3, wild=None, exact_call=True)]


@pytest.mark.parametrize("config", VARIANT_ROUNDS, ids=lambda c: f"{c.describe_variants()},{c.dice[0]}")
@pytest.mark.parametrize("spec", ["one-third", "random", "oehm:0.2"])
def test_one_round_lbr_is_a_lower_bound_under_the_variants(spec, config):
    """One round paid as the variants settle it (dice change: a right exact call gives a die back below the start,
    loss by the difference): LBR, which may call exact, never beats the best response and finds much of it."""
    exact = exploitability(make_player(spec), config)
    lbr = local_best_response(make_player(spec), config)
    assert lbr.as_opener <= exact.as_opener + 1e-9 and lbr.as_responder <= exact.as_responder + 1e-9
    assert lbr.average >= 0.5 * exact.average - 0.03, (lbr, exact)


def test_one_round_lbr_makes_the_exact_call_where_it_pays():
    """Below the starting dice a right exact call wins a die back: LBR's strategy against one-third, the opener with
    one die against two, calls exact with some hands (the whole-game test below counts how often it is right)."""
    config = GameConfig.preset("perudo", dice=2, faces=3)
    tree = cached_solution(config, (1, 2)).tree
    policy = make_player("one-third")
    policy.reset(1, config)
    behaviour = policy_behaviour(policy, tree, 1)
    strategy = lbr_behaviour(policy, tree, 1, behaviour)
    exact_edges = np.flatnonzero(tree.edge_bid[tree.role_edges[0]] == -2)
    assert strategy[:, exact_edges].sum() > 0


def test_lbr_values_each_call_by_how_the_bid_missed():
    """At one die each (Perudo) LBR calling exact is worth its right call's value (the round repeats) when the range
    makes the bid exactly right, and nothing when it makes it wrong; its challenge the reverse."""
    config = GameConfig.preset("perudo", dice=1)
    lbr = LocalBestResponse("one-third")
    lbr.reset(0, config)
    lbr.observe(RoundStart(0, (1, 1), 1))
    ends = lbr._ends
    assert ends.exact is not None and 0.0 < ends.exact[0, 1] < 1.0 and ends.exact[0, 0] == 0.0  # LBR: right, wrong
    view = PublicView(config, 0, (1, 1), ((1, Bid(2, 5)),))
    own = np.array([[0, 0, 0, 0, 1, 0]]) @ match_matrix(config)  # one five
    fives = lbr.ranges[1].matching[:, 4]  # the range's dice matching five: a five or a one
    for matching, exact_value, challenge_value in ((1, ends.exact[0, 1], 0.0), (0, 0.0, 1.0)):
        weights = (fives == matching) / (fives == matching).sum()
        r = lbr.ranges[1]
        actions, values = lookahead_values(lbr.model, view, own, r.matching, r.support, weights, ends)
        assert values[0, actions.index(EXACT)] == pytest.approx(exact_value)
        assert values[0, actions.index(CHALLENGE)] == pytest.approx(challenge_value)


def test_lbr_values_the_round_ends_by_the_variant_tables_game_values():
    """Under loss by the difference (Dudo, 3 dice each) a challenge's loser loses what the bid missed by: each end
    is worth LBR's P(win) in the state it leads to, by the Dudo table's game values."""
    config = GameConfig.preset("dudo", dice=3)
    lbr = LocalBestResponse("one-third")
    lbr.reset(0, config)
    lbr.observe(RoundStart(0, (3, 3), 0))
    table = CFRPlayer().table(config)
    ends, t = lbr._ends, 6
    # LBR (opener) challenges, the bid misses by 2: the responder loses 2 and opens with 1 die against 3
    assert ends.challenge[0, t + 2] == pytest.approx((1.0 - table.value((1, 3))) / 2.0)
    # the bid holds with 1 to spare: LBR, challenging, loses 2 dice; the responder opens with 3 against 1
    assert ends.challenge[0, t - 1] == pytest.approx((1.0 - table.value((3, 1))) / 2.0)
    # the responder challenges a bid of LBR's that misses by 3 (LBR loses its 3 dice), or holds (the responder its 1)
    assert ends.challenge[1, t + 3] == 0.0 and ends.challenge[1, t - 2] == 1.0
    assert np.all(np.diff(ends.challenge[0, :t + 1]) >= 0) and np.all(np.diff(ends.challenge[0, t + 1:]) >= 0)


def test_lbr_keeps_the_palifico_round_and_its_rules():
    """A palifico round (Perudo, one seat down to one die) has no wild ones: the range's matching counts drop the
    ones' wildness, and the palifico seat is remembered for the rounds after."""
    config = GameConfig.preset("perudo", dice=3)
    lbr = LocalBestResponse("one-third")
    lbr.reset(0, config)
    lbr.observe(RoundStart(0, (3, 2), 0))
    lbr.observe(RoundEnd(0, ((1, 0, 0, 0, 0, 2), (0, 1, 1, 0, 0, 0)), Bid(3, 6), 0, 1, 1, 2, (3, 1)))
    lbr.observe(RoundStart(1, (3, 1), 1, palifico=True))
    rules = config.round_rules(True)
    np.testing.assert_array_equal(lbr.ranges[1].matching, lbr.ranges[1].support @ match_matrix(rules))
    assert lbr._had_palifico == {1}


@pytest.mark.parametrize("preset", ["perudo", "dudo"])
def test_lbr_beats_one_third_in_whole_games_under_the_presets(preset):
    config, games = GameConfig.preset(preset, dice=3), 30
    lbr, wins, calls, right = make_player("lbr:one-third"), 0, 0, 0
    for g in range(games):
        seated, _ = rotate([lbr, make_player("one-third")], g)
        record = play_game(config, seated, np.random.default_rng(g), first_opener=0)
        me = seated.index(lbr)
        wins += record.winner == me
        mine = [r for r in record.rounds if r.exact and r.challenger == me]
        calls, right = calls + len(mine), right + sum(r.loser == -1 for r in mine)
    assert wins > games / 2 + 3 * math.sqrt(games) / 2, wins  # a fair coin passes this with probability < 0.2%
    assert (calls > 0 and right > calls / 2) if config.exact_call else calls == 0, (calls, right)


def reproduces_the_search(copy, view, move):
    """At the search's decision: ``copy``, seeing the same events, gives probability 1 to the move played with its
    hand, and for every hand of its seat the move its own values rank first."""
    public = view.public()
    hands = solver_hands(view.dice[view.seat], public.config)[0]
    actions, values = copy._values(hands, public)
    assert copy.observed_probabilities(np.asarray(view.hand)[None, :], public, move).tolist() == [1.0]
    best = lbr_search.best_actions(values)
    for k, action in enumerate(actions):
        np.testing.assert_array_equal(copy.observed_probabilities(hands, public, action), best == k)
    for hand, row in zip(hands[:5], values, strict=False):  # the values of many hands are each hand's alone
        np.testing.assert_allclose(copy._values(hand[None, :], public)[1][0], row, rtol=0, atol=1e-12)


@pytest.mark.parametrize("players, preset", [(2, None), (3, None), (3, "perudo")])
def test_the_search_gives_its_policy_in_the_round_it_observes(players, preset):
    """LBR is deterministic and keeps only what public events tell it, so ``observed_probabilities`` is its policy in
    the round it observes: a copy that sees the game's events gives probability 1 to each move it makes, its values
    for many hands at once are each hand's alone, and it refuses another seat's view or another round's."""
    config = (GameConfig(num_players=players, dice=3) if preset is None
              else GameConfig.preset(preset, num_players=players, dice=3))
    spec = "lbr:[quantal:fit=true,reads=true],ends=fair"
    checked = Watched(make_player(spec), make_player(spec), check=reproduces_the_search)
    play_game(config, [checked] + [make_player("one-third") for _ in range(players - 1)], np.random.default_rng(4))
    assert checked.decisions >= 5
    with pytest.raises(UsageError, match="is not one of seat 0's in the round it observes"):  # between rounds
        checked.watcher.observed_probabilities(np.ones((1, 6)), PublicView(config, 0, (3,) * players), Bid(1, 2))


def test_observed_probabilities_refuse_a_view_outside_the_round_observed():
    """Only its own turns in the round it observes are answered; another round, other rules, other dice, bids it has
    not seen or another seat to act are refused with the reason, and between rounds it keeps no ranges."""
    config, hand = GameConfig(num_players=3, dice=2), np.array([[0, 1, 0, 0, 1, 0]])
    lbr = make_player("lbr:one-third")
    lbr.reset(0, config)
    lbr.observe(RoundStart(2, (2, 2, 2), 1))
    seen, answer = ((1, Bid(2, 3)),), (2, Bid(3, 3))
    lbr.observe(ActionTaken(1, Bid(2, 3), PublicView(config, 1, (2, 2, 2), (), 2)))
    mine = PublicView(config, 0, (2, 2, 2), seen + (answer,), 2)
    assert lbr.observed_probabilities(hand, mine, CHALLENGE).shape == (1,)
    perudo = GameConfig.preset("perudo", num_players=3, dice=2)
    outside = [(PublicView(config, 0, (2, 2, 2), seen + (answer,), 1), "the round observed is round 2"),
               (PublicView(perudo, 0, (2, 2, 2), seen + (answer,), 2), "its rules are not the round's"),
               (PublicView(config, 0, (2, 1, 2), seen + (answer,), 2), r"with dice \(2, 2, 2\)"),
               (PublicView(config, 0, (2, 2, 2), seen, 2), "seat 2 is to act there"),
               (PublicView(config, 0, (2, 2, 2), ((1, Bid(2, 4)), answer), 2), "its bids are not those seen")]
    for view, reason in outside:
        with pytest.raises(UsageError, match=f"is not one of seat 0's in the round it observes: .*{reason}"):
            lbr.observed_probabilities(hand, view, CHALLENGE)
    hands = ((0, 1, 0, 0, 1, 0), (0, 0, 2, 0, 0, 0), (0, 0, 1, 1, 0, 0))
    lbr.observe(RoundEnd(2, hands, Bid(3, 3), 2, 0, 0, 3, (1, 2, 2)))  # three threes: the challenger loses
    assert lbr.ranges == {}
    with pytest.raises(UsageError, match="no round is under way"):
        lbr.observed_probabilities(hand, PublicView(config, 0, (1, 2, 2), (), 3), Bid(1, 2))


def test_observed_probabilities_in_a_palifico_round_take_its_rules():
    """A palifico round's views carry the palifico rules (``config.round_rules(True)``): those are answered, the
    preset's own rules refused."""
    config, hand = GameConfig.preset("perudo", num_players=3, dice=2), np.array([[0, 0, 0, 1, 0, 0]])
    lbr = make_player("lbr:one-third,ends=fair")
    lbr.reset(0, config)
    lbr.observe(RoundStart(3, (1, 2, 2), 0, palifico=True))
    rules = config.round_rules(True)
    assert rules != config
    assert lbr.observed_probabilities(hand, PublicView(rules, 0, (1, 2, 2), (), 3), Bid(1, 4)).shape == (1,)
    with pytest.raises(UsageError, match="its rules are not the round's"):
        lbr.observed_probabilities(hand, PublicView(config, 0, (1, 2, 2), (), 3), Bid(1, 4))
