"""Learning the stranger (issue 53): the quantal family and its posterior in TypeMixture, robust's safety budget,
match play, and the sweeps' refusal of players that carry what they learnt across games."""

from __future__ import annotations

import numpy as np
import pytest
from test_mixture import Watched

from ldpomdp.errors import UsageError
from ldpomdp.game import PlayerView, RoundStart, play_game, rotate
from ldpomdp.players import QuantalEstimate, TypeMixture, check_opponent
from ldpomdp.players.quantal import QuantalFamily
from ldpomdp.registry import make_player
from ldpomdp.rules import CHALLENGE, EXACT, Bid, GameConfig
from ldpomdp.sweeps import Cell, run_sweep

TWO = GameConfig(num_players=2, dice=5)


@pytest.fixture
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path))


# --- the family ---------------------------------------------------------------------------------------------------


def test_a_point_without_shift_or_slip_is_the_quantal_player():
    family = QuantalFamily()
    hand = np.array([1, 0, 2, 0, 1, 1])
    views = [PlayerView(TWO, 0, (5, 5), (), hand=tuple(hand)), PlayerView(TWO, 0, (5, 5), ((1, Bid(3, 4)),),
                                                                         hand=tuple(hand))]
    for temperature in (0.25, 1.0, 4.0):
        point = next(g for g, label in enumerate(family.labels)
                     if label == f"quantal:temperature={temperature:g},shift=0,slip=0")
        for view in views:
            actions, probs = family.point_probabilities(hand, view.public())
            expected_actions, expected = QuantalEstimate(temperature).policy(hand[None, :], view.public())
            assert actions == expected_actions
            np.testing.assert_allclose(probs[point], expected[0], rtol=1e-12, atol=1e-15)


def test_shift_moves_the_calls_and_slip_mixes_in_a_uniform_legal_action():
    """Each point's calls are logistic((q - e - shift) / T); a slip plays each legal action alike (the exact call
    too, where it is open); every point's probabilities sum to one."""
    config = GameConfig.preset("perudo", dice=5)
    family = QuantalFamily()
    hand = np.array([1, 0, 2, 0, 1, 1])
    view = PlayerView(config, 1, (5, 5), ((0, Bid(4, 3)),), hand=tuple(hand)).public()
    actions, probs = family.point_probabilities(hand, view)
    assert actions[-2:] == (CHALLENGE, EXACT) and set(actions) == set(view.legal_actions())
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-12)
    estimate = QuantalEstimate().estimates(hand[None, :], view, reading=False)[0, 2]
    honest = 1.0 / (1.0 + np.exp(-(4 - estimate - family.shift) / family.temperature))
    np.testing.assert_allclose(probs[:, -2], (1 - family.slip) * honest + family.slip / len(actions), rtol=1e-9)
    np.testing.assert_allclose(probs[:, -1], family.slip / len(actions), rtol=1e-12)


def test_the_weighted_policy_is_the_points_mixed():
    family = QuantalFamily()
    rng = np.random.default_rng(0)
    weights = rng.dirichlet(np.ones(len(family))) * 0.7
    hands = np.array([[1, 0, 2, 0, 1, 1], [0, 0, 0, 0, 0, 5], [2, 1, 0, 1, 1, 0]])
    for history in ((), ((1, Bid(3, 4)),), ((1, Bid(10, 6)),)):
        view = PlayerView(TWO, 0, (5, 5), history, hand=(0,) * 6).public()
        actions, mixed = family.policy(hands, view, weights)
        for i, hand in enumerate(hands):
            point_actions, points = family.point_probabilities(hand, view)
            assert point_actions == actions
            np.testing.assert_allclose(mixed[i], weights @ points, rtol=1e-10, atol=1e-15)


# --- the family in the mixture -------------------------------------------------------------------------------------


@pytest.mark.usefixtures("_cache")
@pytest.mark.parametrize("config", [TWO, GameConfig(num_players=3, dice=3), GameConfig(num_players=2, dice=4,
                                                                                          bids="sixes")],
                         ids=["two", "three", "sixes"])
def test_check_opponent_with_the_family(config):
    model = TypeMixture(family="quantal")
    assert check_opponent(model, config, np.random.default_rng(3), n_states=60) >= 60


@pytest.mark.usefixtures("_cache")
def test_act_frequencies_match_action_probabilities_with_the_family():
    model = TypeMixture(family="quantal")
    model.reset(0, TWO)
    weights = np.random.default_rng(1).dirichlet(np.ones(len(model.posterior)))
    model.posterior = weights
    view = PlayerView(TWO, 0, (5, 5), ((1, Bid(3, 4)),), hand=(1, 0, 1, 2, 0, 1))
    rng, n = np.random.default_rng(5), 4000
    counts = {a: 0 for a in view.legal_actions()}
    for _ in range(n):
        counts[model.act(view, rng)] += 1  # KeyError: an illegal action
    total = 0.0
    for action, count in counts.items():
        p = float(model.action_probabilities(np.array([view.hand]), view.public(), action)[0])
        total += p
        assert abs(count / n - p) <= 4 * np.sqrt(p * (1 - p) / n) + 1e-12, (action, count / n, p)
    assert total == pytest.approx(1.0)


@pytest.mark.usefixtures("_cache")
def test_the_prior_gives_the_family_one_share_and_the_floor_goes_to_the_safe_type():
    model = TypeMixture(["one-third", "random"], family="quantal", floor=0.1)
    model.reset(0, TWO)
    assert model.posterior[:2].tolist() == pytest.approx([0.25, 0.25]) and model.posterior[-1] == pytest.approx(0.25)
    assert model.posterior[2:-1].sum() == pytest.approx(0.25) and len(model.posterior) == 2 + len(model.family) + 1
    assert list(model.weights)[-1] == "cfr" and list(model.weights)[2].startswith("quantal:temperature=")
    assert make_player("mixture:family=quantal").name == "mixture:family=quantal"
    with pytest.raises(UsageError, match="TypeMixture.family"):
        TypeMixture(family="level-k")


@pytest.mark.usefixtures("_cache")
@pytest.mark.parametrize("temperature", [0.25, 2.0])
def test_the_posterior_concentrates_on_the_watched_players_parameters(temperature):
    """Watching ``quantal:temperature=T`` (a point of the grid: shift 0, slip 0) play 20 games against one-third at
    5 dice each (seed 1): the family takes the weight from the listed and the safe types, the true point lies in the
    posterior's 99% highest-weight set, and the posterior mean of log T lies within 3 posterior standard deviations
    of log T (a tolerance from the sample: the posterior's own spread)."""
    watcher = TypeMixture(family="quantal")
    watched, rng = Watched(make_player(f"quantal:temperature={temperature}"), watcher, keep=True), \
        np.random.default_rng(1)
    for g in range(20):
        table = [watched, make_player("one-third")]
        play_game(TWO, table[g % 2:] + table[:g % 2], rng)
    family = watcher.family
    points = watcher.posterior[watcher._points]
    assert points.sum() > 0.95, watcher.weights
    order = np.argsort(points)[::-1]
    held = order[:int(np.searchsorted(np.cumsum(points[order]), 0.99 * points.sum())) + 1]
    truth = family.labels.index(f"quantal:temperature={temperature:g},shift=0,slip=0")
    assert truth in held, [family.labels[g] for g in held]
    w = points / points.sum()
    mean = w @ np.log(family.temperature)
    sd = np.sqrt(w @ (np.log(family.temperature) - mean) ** 2)
    assert abs(mean - np.log(temperature)) <= 3 * sd + 1e-9, (np.exp(mean), sd)


@pytest.mark.usefixtures("_cache")
@pytest.mark.parametrize("spec", ["lbr:mixture:family=quantal", "expected-count:belief=exact,assume=[mixture:"
                                                                "family=quantal]"])
def test_the_fitted_model_serves_the_best_response_and_the_planners(spec):
    config = GameConfig(num_players=2, dice=2)
    record = play_game(config, [make_player(spec), make_player("bluff:0.3")], np.random.default_rng(0))
    assert record.winner in (0, 1)


# --- robust's safety budget ----------------------------------------------------------------------------------------


def named(player, config, seat=0):
    """``player`` (robust:learn=true) reset at ``seat``, its posterior on one family point, after a round's
    evidence."""
    player.reset(seat, config)
    posterior = np.zeros_like(player.model.posterior)
    posterior[player.model._points.start] = 1.0
    player.model.posterior = posterior
    player._rounds_seen = 1
    return player


@pytest.mark.usefixtures("_cache")
def test_a_round_is_exploited_only_while_its_risk_is_within_the_budget():
    config = GameConfig(dice=3)
    player = named(make_player("robust:learn=true,allowance=0.3"), config)
    values = player._table.values  # game value to the round's opener, by (opener's dice, responder's dice)
    player.observe(RoundStart(0, (3, 3), 0))
    # the worst end: seat 0 loses a die, whoever opens next
    risk = values[3, 3] - min(values[2, 3], -values[3, 2])
    assert player.risk == pytest.approx(risk) and risk > 0.3
    assert not player.exploiting and player.budget == pytest.approx(0.3)
    player.observe(RoundStart(1, (3, 2), 1))  # won a round it did not exploit: its value counts as won
    won = -values[2, 3] - values[3, 3]
    assert player.won == pytest.approx(won) and player.exploit_result == 0.0
    assert player.risk == pytest.approx(-values[2, 3] - min(-values[2, 2], values[2, 2], -values[1, 3], values[3, 1]))
    assert player.exploiting == (player.risk <= 0.3 + won) and player.exploiting
    player.model.posterior[:] = 0.0
    player.model.posterior[-1] = 1.0  # the safe type explains it best: the equilibrium whatever the budget
    player.observe(RoundStart(2, (2, 2), 0))
    assert not player.exploiting
    with pytest.raises(UsageError, match="replaces stop_loss"):
        make_player("robust:learn=true,stop_loss=0.25")
    with pytest.raises(UsageError, match="allowance= is the safety budget of learn=true"):
        make_player("robust:allowance=0.25")
    with pytest.raises(UsageError, match="learn must be true or false"):
        make_player("robust:learn=2")


class Audited:
    """Seats ``robust`` and checks, whenever a round it exploited has been settled, that its budget is not below
    zero: the exploited rounds never lost more than the allowance and what it had won."""

    def __init__(self, robust):
        self.robust, self.settled, self.lowest = robust, 0, np.inf

    def reset(self, seat, config):
        self.robust.reset(seat, config)

    def act(self, view, rng):
        return self.robust.act(view, rng)

    def observe(self, event):
        exploiting, pending = self.robust.exploiting, self.robust._round_value is not None
        self.robust.observe(event)
        settled = pending and (isinstance(event, RoundStart) or self.robust._round_value is None)
        if exploiting and settled:  # a round it exploited has just been counted
            self.settled += 1
            self.lowest = min(self.lowest, self.robust.budget)
            assert self.robust.budget >= -1e-9, (self.robust.budget, self.robust.won)


@pytest.mark.usefixtures("_cache")
@pytest.mark.parametrize("spec, opponent", [("robust:learn=true,allowance=0.5", "bluff:0.3"),
                                            ("robust:learn=true,allowance=0.1", "quantal:temperature=0.5"),
                                            ("robust:learn=true,allowance=0.5,match=true", "oehm:0.5"),
                                            ("robust:learn=true,allowance=2", "cfr")])
def test_the_budget_never_lets_exploited_rounds_lose_more_than_allowance_and_winnings(spec, opponent):
    """3 dice each, 12 games a cell (seeds 0-11), seats alternating: after every exploited round the budget is at
    least zero, and some rounds were exploited; against cfr none, even with the large allowance (nothing in the
    equilibrium's play names it as a stranger to exploit)."""
    config = GameConfig(dice=3)
    audited = Audited(make_player(spec))
    for seed in range(12):
        table = [audited, make_player(opponent)]
        play_game(config, table[seed % 2:] + table[:seed % 2], np.random.default_rng(seed))
    assert audited.settled == 0 if opponent == "cfr" else audited.settled > 0


# --- match play ----------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("_cache")
def test_match_play_carries_the_posterior_and_the_winnings_until_the_rules_change_or_forget():
    config = GameConfig(dice=2)
    single, match = make_player("robust:learn=true"), make_player("robust:learn=true,match=true")
    for player in (single, match):
        play_game(config, [player, make_player("quantal:temperature=0.5")], np.random.default_rng(0))
    assert match.learns_across_games and not single.learns_across_games
    learnt, won = match.model.posterior.copy(), match.won
    assert abs(won) > 0.5  # a whole game's result, less its value at the start
    match.reset(1, config)
    np.testing.assert_array_equal(match.model.posterior, learnt)
    assert match.won == won and match._rounds_seen > 0
    single.reset(1, config)
    assert single.won == 0.0 and single.model.posterior[-1] == pytest.approx(single.model._prior()[-1])
    match.reset(0, GameConfig(dice=3))  # other rules: a new match
    assert match.won == 0.0 and match._rounds_seen == 0
    np.testing.assert_array_equal(match.model.posterior, match.model._prior())
    play_game(config, [match, make_player("quantal:temperature=0.5")], np.random.default_rng(1))
    match.forget()
    match.reset(0, config)
    assert match.won == 0.0
    with pytest.raises(UsageError, match="match play with the equilibrium is for two players"):
        make_player("robust:learn=true,match=true,machinery=equilibrium").reset(0, GameConfig(num_players=3, dice=2))


def test_the_search_carries_each_seats_fitted_evidence_by_its_place_until_the_rules_change_or_forget():
    """At 3-6 players ``robust:match=true`` plays the search and carries each other seat's fitted evidence to the next
    game, by the seat's place after its own (a rotation of the seats keeps who sits after whom); without ``match``,
    other rules or ``forget()``, the next game starts afresh."""
    config = GameConfig(num_players=3, dice=2)
    match, single = make_player("robust:match=true"), make_player("robust")
    for player in (match, single):
        play_game(config, [player, make_player("random"), make_player("one-third")], np.random.default_rng(0))
    assert match.plays == "search" and match.learns_across_games and not single.learns_across_games
    models = match.search.models
    learnt = {seat: (models[seat].evidence(), models[seat].temperature) for seat in (1, 2)}
    assert all(evidence.any() for evidence, _ in learnt.values()) and learnt[1][1] > learnt[2][1]
    match.reset(1, config)  # one seat on: seat 2 sits where seat 1 sat (next after it), seat 0 where seat 2 sat
    for now, before in ((2, 1), (0, 2)):
        np.testing.assert_array_equal(match.search.models[now].evidence(), learnt[before][0])
        assert match.search.models[now].temperature == learnt[before][1]
    single.reset(1, config)
    assert not any(model.evidence().any() for model in single.search.models.values())
    match.reset(0, GameConfig(num_players=3, dice=3))  # other rules: a new match
    assert not any(model.evidence().any() for model in match.search.models.values())
    play_game(config, [match, make_player("random"), make_player("one-third")], np.random.default_rng(1))
    match.forget()
    match.reset(0, config)
    assert not any(model.evidence().any() for model in match.search.models.values())


@pytest.mark.parametrize("spec", ["robust:learn=true,match=true", "lbr:[robust:learn=true,match=true]"])
def test_sweeps_refuse_match_play(tmp_path, spec):
    """A match player, or a best response watching one (its model would carry the match too), is refused."""
    cell = Cell((spec, "one-third"), GameConfig(dice=1))
    with pytest.raises(UsageError, match="carries what it learnt from game to game"):
        run_sweep([cell], 2, tmp_path / "out", 0, workers=1, progress=False, log=None)
    assert not (tmp_path / "out").exists()


def test_a_best_response_follows_a_match_at_two_players_and_refuses_one_at_three():
    """LBR watching a match player: at two players its one copy plays the match beside the player (so it learns
    across games too, and sweeps refuse it); at three its copies are built each game, so it refuses the match."""
    assert not make_player("lbr:[robust:learn=true]").learns_across_games
    lbr, real = make_player("lbr:[robust:learn=true,match=true]"), make_player("robust:learn=true,match=true")
    assert lbr.learns_across_games
    for game in range(2):
        play_game(GameConfig(dice=2), rotate([lbr, real], game)[0], np.random.default_rng(game))
    copy = lbr.model.player
    assert copy.won == real.won and copy._rounds_seen == real._rounds_seen > 0
    np.testing.assert_array_equal(copy.model.posterior, real.model.posterior)
    with pytest.raises(UsageError, match="cannot follow that player's match"):
        lbr.reset(0, GameConfig(num_players=3, dice=2))
