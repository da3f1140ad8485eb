"""TypeMixture: a valid opponent model, learns who it watches, acts as its likelihood says."""

from __future__ import annotations

import numpy as np
import pytest

from ldpomdp.exact import tables
from ldpomdp.game import ActionTaken, PlayerView, PublicView, RoundEnd, RoundStart, play_game
from ldpomdp.players import TypeMixture, check_opponent
from ldpomdp.registry import make_player
from ldpomdp.rules import Bid, GameConfig

CONFIG = GameConfig(num_players=3, dice=5)


@pytest.mark.usefixtures("_cache")
@pytest.mark.parametrize("bids", ["full", "sixes"])
def test_check_opponent(bids):
    config = GameConfig(num_players=3, dice=5, bids=bids)
    assert check_opponent(TypeMixture(), config, np.random.default_rng(3), n_states=150) >= 150


class Watched:
    """Plays ``player`` and shows every event to ``watcher``, reset to the same seat; with ``keep`` the watcher
    keeps its posterior from game to game; ``check(watcher, view, move)`` is called at each of the player's moves."""

    def __init__(self, player, watcher, keep=False, check=None):
        self.player, self.watcher, self.keep, self.started, self.check = player, watcher, keep, False, check
        self.decisions = 0

    def reset(self, seat, config):
        self.player.reset(seat, config)
        posterior = self.watcher.posterior.copy() if self.keep and self.started else None
        self.watcher.reset(seat, config)
        if posterior is not None:
            self.watcher.posterior = posterior
        self.started = True

    def observe(self, event):
        self.player.observe(event)
        self.watcher.observe(event)

    def act(self, view, rng):
        move = self.player.act(view, rng)
        if self.check is not None:
            self.check(self.watcher, view, move)
        self.decisions += 1
        return move


@pytest.mark.parametrize("kind", ["conservative", "aggressive", "random", "one-third"])
def test_posterior_finds_the_watched_type(kind):
    rng = np.random.default_rng(11)
    for game in range(3):  # a fresh posterior each game: reset() starts from uniform
        watcher = TypeMixture()
        table = [Watched(make_player(kind), watcher), make_player("one-third"), make_player("random")]
        play_game(CONFIG, table[game:] + table[:game], rng)  # the watched player sits in every seat
        assert watcher.weights[kind] > 0.9, (game, watcher.weights)


def test_update_is_bayes_rule_with_floor():
    random_, conservative = make_player("random"), make_player("conservative")
    for floor in (0.0, 0.2):
        model = TypeMixture(["random", "conservative"], floor=floor, safe="none")  # the listed types alone
        model.reset(1, CONFIG)
        hand = (2, 0, 1, 0, 1, 1)
        views = [PlayerView(CONFIG, 1, (5, 5, 5), ((0, Bid(2, 3)),), hand=hand),
                 PlayerView(CONFIG, 1, (5, 5, 5), ((0, Bid(2, 3)), (1, Bid(3, 3)), (2, Bid(4, 3))), hand=hand)]
        actions = [Bid(3, 3), Bid(4, 4)]
        model.observe(RoundStart(0, (5, 5, 5), 0))
        model.observe(ActionTaken(0, Bid(2, 3), PublicView(CONFIG, 0, (5, 5, 5))))  # other seats: not evidence
        model.observe(ActionTaken(1, actions[0], views[0].public()))
        model.observe(ActionTaken(2, Bid(4, 3), PublicView(CONFIG, 2, (5, 5, 5), views[1].history[:2])))
        model.observe(ActionTaken(1, actions[1], views[1].public()))
        before = model.posterior.copy()
        model.observe(RoundEnd(0, ((1,) * 5 + (0,), hand, (5, 0, 0, 0, 0, 0)), Bid(5, 4), 1, 2, 2, 3, (5, 5, 4)))
        lik = np.array([np.prod([m.action_probabilities(np.array([hand]), v.public(), a)[0]
                                 for v, a in zip(views, actions, strict=True)]) for m in (random_, conservative)])
        assert lik[0] > 0 and lik[1] in (0.0, 1.0)
        expected = (1 - floor) * before * lik / (before * lik).sum() + floor / 2
        np.testing.assert_allclose(model.posterior, expected, rtol=1e-12)
        model.reset(1, CONFIG)
        np.testing.assert_allclose(model.posterior, [0.5, 0.5])


def test_act_frequencies_match_action_probabilities():
    model = TypeMixture()
    model.reset(0, CONFIG)
    model.posterior = np.array([0.3, 0.2, 0.2, 0.1, 0.1, 0.1])  # the five types and cfr's blueprint (three players)
    view = PlayerView(CONFIG, 0, (5, 5, 5), ((1, Bid(2, 4)), (2, Bid(3, 4))), hand=(1, 0, 1, 2, 0, 1))
    rng, n = np.random.default_rng(5), 6000
    drawn = [model.act(view, rng) for _ in range(n)]
    hand = np.array([view.hand])
    counts = {a: 0 for a in view.legal_actions()}
    for action in drawn:
        counts[action] += 1  # KeyError: an illegal action
    total = 0.0
    for action, count in counts.items():
        p = float(model.action_probabilities(hand, view.public(), action)[0])
        total += p
        sigma = np.sqrt(p * (1 - p) / n)
        assert abs(count / n - p) <= 4 * sigma + 1e-12, (action, count / n, p)
    assert total == pytest.approx(1.0)


def test_act_draws_only_from_the_given_rng():
    model = TypeMixture()
    model.reset(0, CONFIG)
    view = PlayerView(CONFIG, 0, (5, 5, 5), ((1, Bid(2, 4)),), hand=(1, 0, 1, 2, 0, 1))
    np.random.seed(0)
    global_state = np.random.get_state()[1].copy()
    first = [model.act(view, np.random.default_rng(9)) for _ in range(5)]
    assert len(set(first)) == 1
    np.testing.assert_array_equal(np.random.get_state()[1], global_state)


@pytest.mark.parametrize("kwargs, field", [
    ({"floor": 1.0}, "floor"), ({"floor": -0.1}, "floor"), ({"floor": "x"}, "floor"),
    ({"types": "[one-third,nope]"}, "types"), ({"types": []}, "types"), ({"types": ["nope"]}, "types"),
    ({"types": ["random", "random"]}, "types"), ({"types": 3}, "types"), ({"types": ["human"]}, "types"),
])
def test_validation_names_the_parameter(kwargs, field):
    with pytest.raises(ValueError, match=f"TypeMixture.{field}"):
        TypeMixture(**kwargs)


def test_spec():
    model = make_player("mixture:types=[one-third,random,burcsi-nagy:t=0.1,s=0.5],floor=0.05")
    assert isinstance(model, TypeMixture)
    assert model.types == ("one-third", "random", "burcsi-nagy:s=0.5,t=0.1") and model.floor == 0.05
    assert model.name == "mixture:types=[one-third,random,burcsi-nagy:s=0.5,t=0.1]"
    assert make_player("mixture:types=one-third+random+oehm:0.2").types == ("one-third", "random", "oehm:0.2")
    assert make_player("mixture").types == TypeMixture().types
    with pytest.raises(ValueError, match="floor"):
        make_player("mixture:floor=2")


def watch(spec, games=60, seed=1, config=None, **kwargs):
    """A mixture's weights after watching ``spec`` play ``games`` games of ``config`` (default one round: one die
    each) against one-third, seats alternating."""
    watcher = TypeMixture(**kwargs)
    watched, rng = Watched(make_player(spec), watcher, keep=True), np.random.default_rng(seed)
    for g in range(games):
        table = [watched, make_player("one-third")]
        play_game(config or SMALL, table[g % 2:] + table[:g % 2], rng)
    return watcher.weights


SMALL = GameConfig(num_players=2, dice=1)


@pytest.fixture
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path))


@pytest.mark.usefixtures("_cache")
@pytest.mark.parametrize("spec", ["bluff:0.3", "bluff:0.6", "cfr", "nash"])
def test_weight_moves_to_the_safe_type_against_an_opponent_it_does_not_model(spec):
    before = watch(spec, games=1)["cfr"]
    after = watch(spec)
    assert after["cfr"] > 0.9 and after["cfr"] > before, after


@pytest.mark.usefixtures("_cache")
@pytest.mark.parametrize("kind", ["one-third", "conservative", "aggressive", "random", "oehm:0.2"])
def test_posterior_still_finds_a_modelled_type_beside_the_safe_one(kind):
    weights = watch(kind)
    assert weights[kind] > 0.85, weights


@pytest.mark.usefixtures("_cache")
@pytest.mark.parametrize("preset", ["perudo", "dudo"])
def test_the_safe_type_plays_the_presets(preset):
    """Under each preset (one die each) the safe type is the preset's equilibrium: it takes the weight watching cfr,
    and a listed type still wins it watching that type."""
    config = GameConfig.preset(preset, dice=1)
    assert watch("cfr", config=config)["cfr"] > 0.9
    assert watch("one-third", config=config)["one-third"] > 0.85


@pytest.mark.usefixtures("_cache")
def test_floor_goes_to_the_safe_type():
    model = TypeMixture(["random", "conservative"], floor=0.2)
    model.reset(1, SMALL)
    assert model.safe_active and list(model.weights) == ["random", "conservative", "cfr"]
    hand = (0, 0, 1, 0, 0, 0)
    views = [PublicView(SMALL, 1, (1, 1), ((0, Bid(1, 2)),))]
    model.observe(RoundStart(0, (1, 1), 0))
    model.observe(ActionTaken(0, Bid(1, 2), PublicView(SMALL, 0, (1, 1))))
    model.observe(ActionTaken(1, Bid(1, 3), views[0]))
    before = model.posterior.copy()
    lik = np.array([m.action_probabilities(np.array([hand]), views[0], Bid(1, 3))[0] for m in model.components])
    lik[-1] = 0.98 * lik[-1] + 0.02 / len(views[0].legal_actions())  # the default tremble, on the safe type only
    model.observe(RoundEnd(0, ((0, 1, 0, 0, 0, 0), hand), Bid(1, 3), 1, 0, 0, 1, (0, 1)))
    expected = 0.8 * before * lik / (before * lik).sum() + np.array([0.0, 0.0, 0.2])
    np.testing.assert_allclose(model.posterior, expected, rtol=1e-12)


@pytest.mark.usefixtures("_cache")
@pytest.mark.parametrize("tremble", [0.0, 0.05])
def test_tremble_keeps_the_safe_type_alive_after_a_move_its_table_never_makes(tremble):
    """A move that both the safe type's table and a listed deterministic type never make: with a tremble the safe
    type keeps weight (Bayes on the slip's likelihood), the listed type is ruled out either way."""
    model = TypeMixture(["conservative", "random"], floor=0.0, tremble=tremble)
    model.reset(1, SMALL)
    hand, view = (0, 0, 0, 0, 0, 1), PublicView(SMALL, 1, (1, 1), ((0, Bid(1, 2)),))
    move = Bid(2, 6)  # a raise to 2 sixes holding one six: never played by this table, nor by conservative
    cfr, conservative = model.components[-1], model.components[0]
    assert cfr.action_probabilities(np.array([hand]), view, move)[0] == 0.0
    assert conservative.action_probabilities(np.array([hand]), view, move)[0] == 0.0
    model.observe(RoundStart(0, (1, 1), 0))
    model.observe(ActionTaken(1, move, view))
    model.observe(RoundEnd(0, ((0, 1, 0, 0, 0, 0), hand), move, 1, 0, 0, 1, (0, 1)))
    uniform = 1.0 / len(view.legal_actions())
    safe = tremble * uniform
    expected = np.array([0.0, uniform, safe]) / (uniform + safe)
    np.testing.assert_allclose(model.posterior, expected, rtol=1e-12)


@pytest.mark.usefixtures("_cache")
def test_check_opponent_with_the_safe_type_playing():
    model = TypeMixture()
    assert check_opponent(model, SMALL, np.random.default_rng(3), n_states=100) >= 100 and model.safe_active


def test_safe_type_sits_out_games_it_cannot_play():
    model = TypeMixture()
    four = GameConfig(num_players=4, dice=5)
    sixes = GameConfig(dice=tables.SIXES_TWO_PLAYER_DICE + 1, bids="sixes")
    for config in (four, GameConfig(num_players=2, dice=6), sixes):
        model.reset(0, config)  # 4 players (no blueprint shipped); more dice than the cfr table or the sixes game's
        assert not model.safe_active and "cfr" not in model.weights and len(model.posterior) == 5
    model.reset(0, CONFIG)  # three players, 5 dice each: the shipped blueprint plays
    assert model.safe_active and len(model.posterior) == 6
    off = TypeMixture(safe="none")
    off.reset(0, SMALL)
    assert not off.safe_active and off.name == "mixture:safe=none"


@pytest.mark.parametrize("kwargs, match", [
    ({"safe": "nope"}, "TypeMixture.safe"), ({"safe": "expected-count"}, "TypeMixture.safe"),
    ({"types": ["random", "cfr"]}, "TypeMixture.safe"),
])
def test_safe_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        TypeMixture(**kwargs)
