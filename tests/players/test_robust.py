"""The robust player: the equilibrium, and the best response to a listed type once identified, within a stop-loss."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from conftest import fresh_tables
from test_mixture import Watched

from ldpomdp.exact.two_player.equilibrium import solve_game
from ldpomdp.game import GameState, RoundStart, play_game
from ldpomdp.players.lbr import LocalBestResponse
from ldpomdp.players.mixture import TypeMixture
from ldpomdp.players.robust import SEARCH, RobustPlayer, machinery_for
from ldpomdp.registry import make_player
from ldpomdp.rules import GameConfig, is_legal
from ldpomdp.sweeps import wilson_interval


@pytest.mark.parametrize("kwargs, match", [
    ({"confidence": 0.995}, "never be reached"), ({"confidence": 1.5}, "confidence"), ({"safe": "none"}, "safe"),
    ({"safe": "nash"}, "not a cfr player"), ({"types": ["nope"]}, "TypeMixture.types"),
    ({"floor": "x"}, "RobustPlayer.floor"),
])
def test_validation_names_the_problem(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RobustPlayer(**kwargs)


def test_with_the_equilibrium_forced_it_refuses_the_tables_the_equilibrium_cannot_play():
    with pytest.raises(ValueError, match="blueprints are solved on demand for 3 players"):
        make_player("robust:machinery=equilibrium").reset(0, GameConfig(num_players=4, dice=2))
    with pytest.raises(ValueError, match="covers up to"):
        make_player("robust:machinery=equilibrium").reset(0, GameConfig(dice=6))
    with pytest.raises(ValueError, match="RobustPlayer.machinery"):
        make_player("robust:machinery=blueprint")


@pytest.mark.parametrize("config, plays", [
    (GameConfig(dice=5), "equilibrium"), (GameConfig.preset("perudo", dice=5), "equilibrium"),
    (GameConfig(dice=6), "search"), (GameConfig.preset("dudo", dice=6), "search"),
    (GameConfig(dice=3, palifico=True), "equilibrium"),  # solved on first use: about 30 CPU s, estimated
    (GameConfig(dice=4, palifico=True), "search"),  # the tables solved on demand cover 3 dice each
    (GameConfig(dice=35, bids="sixes"), "search"),  # about 46 CPU minutes to solve, estimated
    (GameConfig(num_players=3, dice=5), "search"), (GameConfig(num_players=6, dice=5, bids="sixes"), "search"),
], ids=str)
def test_auto_chooses_the_equilibrium_only_where_a_table_is_shipped_or_solves_in_seconds(config, plays):
    assert machinery_for(config) == plays
    assert machinery_for(config, "cfr:table=some.npz") == "equilibrium"  # a table the user brings is played


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("rules", [None, "perudo", "dudo"])
def test_plays_every_table_of_two_to_six_players_under_every_preset_at_one_to_five_dice(players, rules):
    """No refusal (issue 52): reset at each dice count, then a whole seeded game at 5 dice each against one-third."""
    for dice in (1, 2, 3, 4, 5):
        config = (GameConfig(num_players=players, dice=dice) if rules is None
                  else GameConfig.preset(rules, num_players=players, dice=dice))
        make_player("robust").reset(0, config)
    robust = make_player("robust")
    record = play_game(config, [robust] + [make_player("one-third") for _ in range(players - 1)], 0)
    assert robust.decisions > 0 and robust.plays == ("equilibrium" if players == 2 else "search")
    assert record.winner in range(players)


@pytest.mark.parametrize("field", [{"palifico": True}, {"exact_call": True}, {"loss": "difference"}, {"wild": None},
                                   {"wild": 6}, {"opener": "loser"}, {"wild_bids": "perudo"}, {"bids": "sixes"},
                                   {"faces": 4}], ids=str)
def test_plays_every_rule_field_alone(field, tmp_path, monkeypatch):
    """Each rule field changed alone: at 3 and 6 players with 5 dice each, and at 2 with 4 (beyond the tables solved
    on first use but the sixes game's, solved here in a fresh cache), reset and a first move."""
    fresh_tables(monkeypatch, tmp_path)
    for players, dice in ((2, 4), (3, 5), (6, 5)):
        config = GameConfig(num_players=players, dice=dice, **field)
        robust = _opening(config)
        assert robust.plays == ("equilibrium" if (players, field) == (2, {"bids": "sixes"}) else "search")


@pytest.mark.parametrize("config", [GameConfig(num_players=3, dice=10), GameConfig(dice=10),
                                    GameConfig(num_players=3, dice=35, bids="sixes")], ids=str)
def test_plays_the_full_game_at_ten_dice_and_report_002s_game_at_35(config):
    assert _opening(config).plays == "search"


def _opening(config: GameConfig) -> RobustPlayer:
    """A robust player reset at seat 0 for ``config``, after checking that its opening bid there is legal."""
    robust = make_player("robust")
    robust.reset(0, config)
    state = GameState(config, np.random.default_rng(1))
    robust.observe(state.start_round())
    view = state.round.view()
    assert view.seat == 0 and is_legal(config, view.table_dice, view.bid, robust.act(view, np.random.default_rng(2)))
    return robust


def test_the_search_plays_as_it_did_when_its_tables_were_measured():
    """Seeded games of robust's search at 3 and 4 players (today's rules, Perudo, the sixes game) hash as they did when
    its models began to fit each seat's temperature (quantal:fit=true, 2026-12-07; before, as at commit cf1e64a),
    whose measurements the docs give as robust's: a change of its play must say so."""
    digest = hashlib.sha256()
    for config in (GameConfig(num_players=3, dice=3), GameConfig.preset("perudo", num_players=4, dice=2),
                   GameConfig(num_players=3, dice=8, bids="sixes")):
        for seed in range(2):
            seated = [make_player("robust"), make_player("one-third"), make_player("bluff:0.3")]
            seated += [make_player("one-third") for _ in range(config.num_players - 3)]
            digest.update(repr(play_game(config, seated, seed).rounds).encode())
    assert digest.hexdigest()[:16] == "5b2ff432e1c3b175"


@pytest.mark.parametrize("players, rules", [(3, None), (4, "perudo"), (2, None)])
def test_the_search_machinery_plays_the_search_spec_move_for_move(players, rules):
    """``robust`` where it plays the search is ``SEARCH`` draw for draw: the search's measured figures are its own."""
    config = (GameConfig(num_players=players, dice=6) if rules is None
              else GameConfig.preset(rules, num_players=players, dice=4))
    for seed in range(2):
        firsts = (make_player("robust"), make_player(SEARCH))
        games = [play_game(config, [first] + [make_player("bluff:0.3") for _ in range(players - 1)], seed)
                 for first in firsts]
        assert firsts[0].plays == "search" and firsts[0].decisions > 0
        assert games[0].rounds == games[1].rounds


@pytest.mark.parametrize("config", [GameConfig(dice=2), GameConfig.preset("perudo", dice=2),
                                    GameConfig.preset("dudo", dice=2)], ids=["today", "perudo", "dudo"])
def test_plays_the_equilibrium_against_an_opponent_it_cannot_name(config):
    """Against cfr itself the type posterior never leaves the safe type, so the games are cfr's own, draw for
    draw (the robust player hands its generator to cfr); under the presets too (the exact call, palifico rounds,
    loss by the difference)."""
    for seed in range(4):
        robust = make_player("robust")
        games = [play_game(config, [first, make_player("cfr")], np.random.default_rng(seed))
                 for first in (robust, make_player("cfr"))]
        assert robust.decisions > 0 and robust.exploited == 0
        assert games[0].rounds == games[1].rounds


def test_identification_and_stop_loss_gate_the_exploitation():
    config = GameConfig(dice=3)
    player = make_player("robust")
    player.reset(0, config)
    values = player._table.values  # game value to the round's opener, by (opener's dice, responder's dice)
    identified = np.zeros_like(player.model.posterior)
    identified[0] = 1.0
    player.model.posterior = identified
    player.observe(RoundStart(0, (3, 3), 0))
    assert not player.exploiting  # no round has ended: no evidence yet, whatever the prior says
    player.model.posterior = np.full_like(identified, 1.0 / len(identified))
    player._rounds_seen = 1  # a round ended (its RoundEnd would also move the posterior)
    player.observe(RoundStart(0, (3, 3), 0))
    assert not player.exploiting  # nothing identified: the equilibrium
    player.model.posterior = identified
    player.observe(RoundStart(1, (3, 2), 1))  # seat 0 won the round it did not exploit: not counted
    assert player.exploiting and player.exploit_result == 0.0
    player.observe(RoundStart(2, (3, 1), 1))  # won the exploited round
    won = -values[1, 3] + values[2, 3]
    assert player.exploit_result == pytest.approx(won) and won > 0 and player.exploiting
    player.observe(RoundStart(3, (2, 1), 0))  # lost one: still above -stop_loss?
    result = won + values[2, 1] + values[1, 3]
    assert player.exploit_result == pytest.approx(result)
    assert player.exploiting == (result >= -player.stop_loss)
    player.observe(RoundStart(4, (1, 1), 0))  # lost again: far below, the equilibrium for the rest of the game
    assert not player.exploiting
    player.observe(RoundStart(5, (1, 1), 1))
    assert not player.exploiting and player.exploit_result < -player.stop_loss


def test_exploits_an_identified_type():
    """Against one-third (a listed type) at 3 dice each the posterior names it after a round, so some decisions are
    the best responder's."""
    config = GameConfig(dice=3)
    robust = make_player("robust")
    exploited = []
    for seed in range(4):
        play_game(config, [robust, make_player("one-third")], np.random.default_rng(seed))
        exploited.append(robust.exploited)
    assert sum(e > 0 for e in exploited) >= 2, exploited


@pytest.mark.parametrize("preset", ["perudo", "dudo"])
def test_exploits_one_third_under_the_presets(preset):
    """3 dice each: one-third is named after a round and exploited by the best responder, which knows the variant's
    ends; robust wins most games (a fair coin wins 7 of 8 with probability 3.5%)."""
    config = GameConfig.preset(preset, dice=3)
    robust, wins, exploited = make_player("robust"), 0, []
    for seed in range(8):
        seated = [robust, make_player("one-third")][::1 if seed % 2 == 0 else -1]
        record = play_game(config, seated, np.random.default_rng(seed))
        wins += seated[record.winner] is robust
        exploited.append(robust.exploited)
    assert sum(e > 0 for e in exploited) >= 4 and wins >= 7, (exploited, wins)


@pytest.mark.parametrize("preset", ["perudo", "dudo"])
@pytest.mark.parametrize("spec", ["expected-count:assume=cfr", "pomcp:assume=cfr,sims=50"])
def test_planners_assuming_cfr_play_the_presets(preset, spec):
    """The planners keep their beliefs with the preset's equilibrium (palifico rounds included) through whole
    games at 2 and 3 dice each."""
    for dice in (2, 3):
        config = GameConfig.preset(preset, dice=dice)
        for seed in range(2):
            seated = [make_player(spec), make_player("cfr")][::1 if seed % 2 == 0 else -1]
            assert play_game(config, seated, np.random.default_rng(seed)).winner in (0, 1)


def test_the_exploiter_is_built_whole_with_the_safe_players_tables_and_a_type_model_per_seat():
    player = RobustPlayer()
    exploiter = player.exploiter
    assert exploiter.tables == player.safe_player.table and exploiter.blueprints == player.safe_player.blueprint
    copies = exploiter.copy_model(), exploiter.copy_model()
    assert all(isinstance(m, TypeMixture) and m.types == player.model.types for m in copies)
    assert copies[0] is not copies[1]


def test_under_variants_the_exploiter_values_rounds_by_the_safe_players_own_table(tmp_path):
    config = GameConfig.preset("perudo", dice=2, faces=3)  # no shipped table: the one solved here is the only one
    path = solve_game(config, 2, 2, 5).save(tmp_path / "perudo.npz")
    player = RobustPlayer(safe=f"cfr:table={path}")
    player.reset(0, config)
    assert player.exploiter._table is player.safe_player.table(config)
    assert play_game(config, [player, make_player("one-third")], np.random.default_rng(0)).winner in (0, 1)


# --- three players -------------------------------------------------------------------------------------------------

def test_at_three_players_plays_the_blueprint_against_opponents_it_cannot_name():
    """With the equilibrium's machinery, two cfr copies are never named as a listed type: robust's games are cfr's
    own, draw for draw."""
    config = GameConfig(num_players=3, dice=2)
    for seed in range(3):
        robust = make_player("robust:machinery=equilibrium")
        games = [play_game(config, [first, make_player("cfr"), make_player("cfr")], np.random.default_rng(seed))
                 for first in (robust, make_player("cfr"))]
        assert robust.decisions > 0 and robust.exploited == 0
        assert games[0].rounds == games[1].rounds


def test_at_three_players_exploits_only_once_every_seat_with_dice_is_named():
    config = GameConfig(num_players=3, dice=3)
    player = make_player("robust:machinery=equilibrium")
    player.reset(0, config)
    models = player.exploiter.models
    assert sorted(models) == [1, 2] and models[1] is not models[2]
    named = np.zeros_like(models[1].posterior)
    named[0] = 1.0
    player._rounds_seen = 1
    models[1].posterior = named
    player.observe(RoundStart(1, (3, 3, 3), 0))
    assert not player.exploiting  # seat 2 is not named yet
    models[2].posterior = named.copy()
    player.observe(RoundStart(2, (3, 3, 3), 0))
    assert player.exploiting
    models[2].posterior = np.full_like(named, 1.0 / len(named))
    player.observe(RoundStart(3, (3, 3, 0), 0))  # seat 2 is out: only seat 1 counts
    assert player.exploiting
    win = player._table.win_probabilities((3, 3, 2))[1]  # seat 0 second in turn from the opener, seat 2
    assert player._value((3, 2, 3), 2, False) == pytest.approx(2.0 * win - 1.0)
    assert player._value((0, 2, 3), 2, False) == -1.0 and player._value((2, 0, 0), 1, False) == 1.0


def test_exploits_two_one_third_at_three_players():
    """Three players, 3 dice each (the shipped blueprint), seats rotated: robust with the equilibrium's machinery names
    both one-third seats and wins with a 95% interval above the fair third over 30 games."""
    config, games, wins, exploited = GameConfig(num_players=3, dice=3), 30, 0, 0
    for seed in range(games):
        robust = make_player("robust:machinery=equilibrium")
        seated = [robust, make_player("one-third"), make_player("one-third")]
        seated = seated[seed % 3:] + seated[:seed % 3]
        wins += seated[play_game(config, seated, np.random.default_rng(seed)).winner] is robust
        exploited += robust.exploited
    assert exploited > 0 and wilson_interval(wins, games)[0] > 1 / 3, (wins, exploited)


def reproduces_robust(copy, view, move):
    """At robust's decision ``copy``, seeing the same events, gives the policy of the part that plays.

    The search's or the exploiter's move with probability 1, or the equilibrium's probabilities (a fresh ``cfr``'s)."""
    hand, public = np.asarray(view.hand)[None, :], view.public()
    actions = public.legal_actions()
    probs = np.array([copy.observed_probabilities(hand, public, a)[0] for a in actions])
    if isinstance(copy.playing, LocalBestResponse):
        assert probs[actions.index(move)] == 1.0 and probs.sum() == 1.0
    else:
        equilibrium = make_player("cfr")
        equilibrium.reset(view.seat, public.config)
        expected = [equilibrium.action_probabilities(hand, public, a)[0] for a in actions]
        np.testing.assert_allclose(probs, expected, rtol=0, atol=1e-12)
        assert probs[actions.index(move)] > 0.0


@pytest.mark.parametrize("players", [2, 3])
def test_robust_gives_its_policy_in_the_round_it_observes(players):
    """``robust``'s ``observed_probabilities`` is the policy of the part that plays (the equilibrium at two players,
    the search at three), for a copy that saw the same events: what a local best response to it reads."""
    config = GameConfig(num_players=players, dice=2)
    checked = Watched(make_player("robust"), make_player("robust"), check=reproduces_robust)
    play_game(config, [checked] + [make_player("one-third") for _ in range(players - 1)], np.random.default_rng(2))
    assert checked.decisions >= 2 and checked.watcher.plays == ("equilibrium" if players == 2 else "search")
    assert players == 3 or 0 < checked.player.exploited < checked.decisions  # both parts were checked
