"""Exact best response to hand-independent opponents: against a plain expectimax over every roll and bid
sequence, against real games played with its player, against a simple policy, and its errors."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest

from ldpomdp.exact import BestResponsePlayer, FixedOpponentsSolution, solve_fixed_opponents
from ldpomdp.exact.fixed_opponents import MAX_DICE_STATES, MAX_ROUND_CELLS
from ldpomdp.game import PublicView, play_game
from ldpomdp.opponents import OneThirdRule, RandomPlayer
from ldpomdp.opponents.wildcard import AggressivePlayer, ConservativePlayer
from ldpomdp.rules import CHALLENGE, GameConfig, legal_actions, next_active_seat, next_opener


# ---------------------------------------------------------------- brute force (independent of the solver)

def brute_force(config: GameConfig, models: dict, seat: int, opener: int) -> float:
    """The responder's best P(win the game) by expectimax over its rolls and full bid histories; the truth of
    a challenged bid is counted over every roll of the other dice, opponents answer ``action_probabilities``
    for the whole history."""
    faces = config.faces
    for s, m in models.items():
        m.reset(s, config)

    def matches(die: int, face: int) -> bool:
        return die == face or (config.wild is not None and face != config.wild and die == config.wild)

    @lru_cache(maxsize=None)
    def game(dice: tuple[int, ...], opener: int) -> float:
        if dice[seat] == 0:
            return 0.0
        if sum(d > 0 for d in dice) == 1:
            return 1.0
        rolls = Counter(tuple(r.count(f) for f in range(1, faces + 1))
                        for r in itertools.product(range(1, faces + 1), repeat=dice[seat]))
        others = list(itertools.product(range(1, faces + 1), repeat=sum(dice) - dice[seat]))
        total = sum(n * node(dice, hand, others, (), opener) for hand, n in rolls.items())
        return total / faces ** dice[seat]

    def node(dice, hand, others, history, actor) -> float:
        bid = history[-1][1] if history else None
        actions = legal_actions(config, sum(dice), bid)
        values = []
        for a in actions:
            if a is CHALLENGE:
                bidder = history[-1][0]
                mine = sum(hand[f - 1] for f in range(1, faces + 1) if matches(f, bid.face))
                true = sum(mine + sum(matches(d, bid.face) for d in roll) >= bid.quantity for roll in others)
                p = true / len(others)
                values.append(p * after(dice, actor, actor) + (1 - p) * after(dice, bidder, actor))
            else:
                values.append(node(dice, hand, others, history + ((actor, a),), next_active_seat(dice, actor)))
        if actor == seat:
            return max(values)
        view = PublicView(config, actor, dice, history)
        some_hand = np.zeros((1, faces), dtype=np.int64)
        some_hand[0, 0] = dice[actor]
        probs = [float(models[actor].action_probabilities(some_hand, view, a)[0]) for a in actions]
        assert math.isclose(sum(probs), 1.0)
        return sum(p * v for p, v in zip(probs, values))

    def after(dice, loser, challenger) -> float:
        left = tuple(d - (s == loser) for s, d in enumerate(dice))
        if left[seat] == 0 or sum(d > 0 for d in left) == 1:
            return game(left, 0)
        return game(left, next_opener(config, left, challenger, loser))

    return game(config.starting_dice, opener)


CASES = {  # small enough for every bid history: 2^(bids) sequences at most
    "2p vs aggressive, 1 die": (GameConfig(num_players=2, dice=1), {1: AggressivePlayer()}, 0),
    "2p vs aggressive, 3 faces, 2 dice, seat 1": (
        GameConfig(num_players=2, dice=2, faces=3), {0: AggressivePlayer()}, 1),
    "2p vs random, 3 faces, loser opens": (
        GameConfig(num_players=2, dice=(2, 1), faces=3, opener="loser"), {1: RandomPlayer()}, 0),
    "3p random+aggressive, 3 faces, top face wild, seat 1": (
        GameConfig(num_players=3, dice=1, faces=3, wild=3), {0: RandomPlayer(), 2: AggressivePlayer()}, 1),
    "2p sixes vs random, no wild": (GameConfig(num_players=2, dice=(2, 3), bids="sixes", wild=None),
                                     {1: RandomPlayer()}, 0),
}


@pytest.mark.parametrize("case", list(CASES))
def test_game_value_equals_brute_force(case):
    config, models, seat = CASES[case]
    solution = FixedOpponentsSolution(config, models, seat)
    for opener in range(config.num_players):
        assert solution.win_probability(opener=opener) == pytest.approx(
            brute_force(config, models, seat, opener), abs=1e-9)


# ---------------------------------------------------------------- played games

def win_rate(config: GameConfig, player: object, models: dict, games: int, seed: int) -> float:
    """The responder's (seat 0) share of wins over ``games`` games, openers rotated."""
    rng = np.random.default_rng(seed)
    seated = [player, *(models[s] for s in range(1, config.num_players))]
    wins = sum(play_game(config, seated, rng, first_opener=g % config.num_players).winner == 0 for g in range(games))
    return wins / games


MC_CONFIG = GameConfig(num_players=3, dice=(1, 2, 2))  # the responder starts a die short: it loses often
MC_GAMES = 3000


def test_played_games_match_the_value():
    models = {1: AggressivePlayer(), 2: RandomPlayer()}
    solution = solve_fixed_opponents(MC_CONFIG, models)
    value = np.mean([solution.win_probability(opener=o) for o in range(3)])
    assert 0.2 < value < 0.9  # a real check: the responder loses a fair share of games
    rate = win_rate(MC_CONFIG, BestResponsePlayer(solution), models, MC_GAMES, seed=11)
    assert abs(rate - value) <= 4 * math.sqrt(value * (1 - value) / MC_GAMES)


def test_value_is_at_least_the_one_third_rule():
    models = {1: AggressivePlayer(), 2: RandomPlayer()}
    solution = solve_fixed_opponents(MC_CONFIG, models)
    value = np.mean([solution.win_probability(opener=o) for o in range(3)])
    rate = win_rate(MC_CONFIG, OneThirdRule(), models, MC_GAMES, seed=12)
    assert value >= rate - 4 * math.sqrt(rate * (1 - rate) / MC_GAMES)


def test_player_checks_its_seat():
    solution = FixedOpponentsSolution(GameConfig(num_players=2, dice=1), {1: RandomPlayer()})
    with pytest.raises(ValueError, match="seat 0"):
        BestResponsePlayer(solution).reset(1, solution.config)


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("model, name", [(ConservativePlayer(), "conservative"), (OneThirdRule(), "one-third")])
def test_hand_dependent_model_is_named(model, name):
    solution = FixedOpponentsSolution(GameConfig(num_players=2, dice=1), {1: model})
    with pytest.raises(ValueError, match=f"{name}.*hand"):
        solution.win_probability(opener=1)


class _Leaky(RandomPlayer):
    """Says 0.3 for every legal action: sums to one only by chance."""

    name = "leaky"

    def shared_probability(self, view: PublicView, action: object) -> float:
        return 0.3


def test_probabilities_not_summing_to_one_are_named():
    solution = FixedOpponentsSolution(GameConfig(num_players=2, dice=1), {1: _Leaky()})
    with pytest.raises(ValueError, match="leaky.*sum"):
        solution.win_probability()


def test_bad_arguments_and_sizes():
    config = GameConfig(num_players=3, dice=1)
    with pytest.raises(ValueError, match="every other seat"):
        FixedOpponentsSolution(config, {1: RandomPlayer()})
    with pytest.raises(ValueError, match="seat must be"):
        FixedOpponentsSolution(config, {0: RandomPlayer(), 1: RandomPlayer()}, seat=3)
    with pytest.raises(ValueError, match="opener"):
        FixedOpponentsSolution(config, {1: RandomPlayer(), 2: RandomPlayer()}).win_probability((1, 0, 1), opener=1)
    many = GameConfig(num_players=8, dice=5)
    with pytest.raises(ValueError, match="MAX_DICE_STATES"):
        FixedOpponentsSolution(many, {s: RandomPlayer() for s in range(1, 8)})
    big = GameConfig(num_players=2, dice=40)
    with pytest.raises(ValueError, match="MAX_ROUND_CELLS"):
        FixedOpponentsSolution(big, {1: RandomPlayer()})
    assert 6 ** 8 > MAX_DICE_STATES and math.comb(45, 5) * 6 * 80 * 2 > MAX_ROUND_CELLS
