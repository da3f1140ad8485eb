"""benchmarks/strangers: the outside search agent plays legal, reproducible whole games at two and more players and
under the presets, seats through a user spec, and its informed prior leans the other hands toward their bids."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from conftest import ROOT

from ldpomdp.game import PlayerView, play_game
from ldpomdp.registry import make_player
from ldpomdp.rules import Bid, GameConfig, matching_count

sys.path.insert(0, str(ROOT / "benchmarks"))
from strangers.ismcts import _PRIOR_HANDS, InformedISMCTS


@pytest.mark.parametrize("players,dice,rules", [(2, 3, None), (3, 2, None), (3, 2, "perudo"), (4, 1, "dudo")])
def test_plays_whole_games_legally_and_reproducibly(players, dice, rules):
    config = (GameConfig(num_players=players, dice=dice) if rules is None
              else GameConfig.preset(rules, num_players=players, dice=dice))
    spec = "strangers.ismcts:InformedISMCTS:sims=60"
    records = [play_game(config, [make_player(spec) if s % 2 == 0 else make_player("one-third")
                                  for s in range(players)], np.random.default_rng(seed)) for seed in (5, 5, 6)]
    assert records[0].winner in range(players)  # a whole game, every action legal (else IllegalActionError)
    assert records[0] == records[1]  # its randomness comes from act's rng alone
    assert records[0] != records[2]


def test_informed_prior_leans_toward_the_bids_face():
    config = GameConfig(num_players=2, dice=5)
    agent = InformedISMCTS(sims=4000)
    agent.reset(0, config)
    view = PlayerView(config, 0, (5, 5), ((1, Bid(2, 5)), (0, Bid(3, 5)), (1, Bid(4, 5))), 0, hand=(1, 0, 1, 1, 1, 1))
    drawn = np.array(agent._determinisations(view, np.random.default_rng(0))[1])
    fives = matching_count(drawn, 5, config)
    # uniform hands: 5 dice, each matching a five with p = 1/3, so mean 5/3 and variance 10/9 per hand; the draws are
    # resampled from _PRIOR_HANDS rolled hands, so the mean's variance is 10/9 (1/_PRIOR_HANDS + 1/draws)
    assert fives.mean() > 5 / 3 + 5 * math.sqrt(10 / 9 * (1 / _PRIOR_HANDS + 1 / len(fives)))


def test_forced_faces_of_a_palifico_round_do_not_move_the_prior():
    config = GameConfig.preset("perudo", num_players=2, dice=3).round_rules(True)
    agent = InformedISMCTS(sims=50)
    opening = ((1, Bid(1, 3)),)
    forced = opening + ((0, Bid(2, 3)), (1, Bid(3, 3)))  # in a palifico round every bid repeats the opening face
    draws = [agent._determinisations(PlayerView(config, 0, (3, 3), history, 0, hand=(0, 1, 1, 0, 1, 0)),
                                     np.random.default_rng(3))[1] for history in (opening, forced)]
    assert draws[0] == draws[1]


def test_bad_parameters_are_one_error():
    for bad in ({"sims": 0}, {"sims": 2.5}, {"noise": 0}):
        with pytest.raises(ValueError, match="InformedISMCTS: needs an integer sims >= 1"):
            InformedISMCTS(**bad)
